import type { IncomingMessage, ServerResponse } from 'node:http';
import { LOOPBACK_HOSTNAMES } from '@conduit-mcp/core';
import { HeaderVerdicts } from './header-verdicts';
import { headerValue } from './http-request.util';
import { sendError } from './http-response.util';

/**
 * DNS-rebinding protection: whether a `Host` header names an accepted host.
 * `allowed` entries are `host` (any port) or `host:port`, compared case-insensitively; undefined means
 * {@link LOOPBACK_HOSTNAMES}; `false` accepts everything. A missing or malformed Host is refused.
 */
export function isAllowedHost(host: string | undefined, allowed: readonly string[] | false | undefined): boolean {
  if (allowed === false) return true;
  const parsed = parseHost(host);
  if (!parsed) return false;
  return (allowed ?? LOOPBACK_HOSTNAMES).some((entry) => {
    const wanted = parseHost(entry);
    return (
      !!wanted && wanted.hostname === parsed.hostname && (wanted.port === undefined || wanted.port === parsed.port)
    );
  });
}

/**
 * Whether an `Origin` header is accepted. No header (a non-browser client) is accepted; `Origin: null` and anything
 * that is not a bare `scheme://host[:port]` are refused. `allowed` entries are origins compared after normalization;
 * undefined means http(s) origins on a loopback host, any port; `false` accepts everything.
 */
export function isAllowedOrigin(origin: string | undefined, allowed: readonly string[] | false | undefined): boolean {
  if (allowed === false || origin === undefined) return true;
  const parsed = parseOrigin(origin);
  if (!parsed) return false;
  if (allowed === undefined) {
    return (
      (parsed.protocol === 'http:' || parsed.protocol === 'https:') && LOOPBACK_HOSTNAMES.includes(parsed.hostname)
    );
  }
  return allowed.some((entry) => parseOrigin(entry)?.origin === parsed.origin);
}

/** The normalized form of an `Origin` value (`scheme://host[:port]`, lower-case); undefined when it is not one. */
export function normalizeOrigin(value: string): string | undefined {
  return parseOrigin(value)?.origin;
}

/** What the Origin check asks of the CORS policy: origins CORS allows are accepted too. */
export interface CorsOriginAllowance {
  allowsOrigin(origin: string): boolean;
}

/** The options the Host and Origin checks read (`ResolvedHttpOptions` has them). */
export interface HostAndOriginOptions {
  /** Accepted Host values; undefined means loopback names only, `false` turns the check off. */
  allowedHosts: readonly string[] | false | undefined;
  /** Accepted Origin values; undefined means loopback origins only, `false` turns the check off. */
  allowedOrigins: readonly string[] | false | undefined;
  cors?: CorsOriginAllowance | false;
}

/**
 * Answers 403 to a request whose Host or Origin is not accepted; true when the request may proceed. An Origin is
 * accepted when `allowedOrigins` accepts it, or when `cors` (`http.cors`) allows it.
 */
export function passesHostAndOrigin(req: IncomingMessage, res: ServerResponse, options: HostAndOriginOptions): boolean {
  let checks = verdicts.get(options);
  if (!checks) {
    const { cors } = options;
    checks = {
      host: new HeaderVerdicts((host) => isAllowedHost(host, options.allowedHosts)),
      origin: new HeaderVerdicts(
        (origin) => isAllowedOrigin(origin, options.allowedOrigins) || (!!cors && cors.allowsOrigin(origin)),
      ),
    };
    verdicts.set(options, checks);
  }
  const host = headerValue(req, 'host');
  if (!(host === undefined ? isAllowedHost(host, options.allowedHosts) : checks.host.of(host))) {
    sendError(res, 403, 'Forbidden: Host header not allowed');
    return false;
  }
  const origin = headerValue(req, 'origin');
  if (!(origin === undefined ? isAllowedOrigin(origin, options.allowedOrigins) : checks.origin.of(origin))) {
    sendError(res, 403, 'Forbidden: Origin not allowed');
    return false;
  }
  return true;
}

// Verdicts on the Host and Origin values seen, per options object (one per mounted endpoint).
const verdicts = new WeakMap<object, { host: HeaderVerdicts<boolean>; origin: HeaderVerdicts<boolean> }>();

function parseHost(value: string | undefined): { hostname: string; port: string | undefined } | undefined {
  if (!value) return undefined;
  const host = value.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(host);
  return match ? { hostname: match[1], port: match[2] } : undefined;
}

function parseOrigin(value: string): { protocol: string; hostname: string; origin: string } | undefined {
  try {
    const url = new URL(value.trim());
    // An origin is scheme, host and port only: no credentials, path, query or fragment.
    if (url.username || url.password || url.search || url.hash || (url.pathname !== '' && url.pathname !== '/'))
      return undefined;
    if (!url.host) return undefined;
    return { protocol: url.protocol, hostname: url.hostname, origin: `${url.protocol}//${url.host}` };
  } catch {
    return undefined;
  }
}

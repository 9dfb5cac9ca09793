import { ClientRequest, IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { LookupFunction } from 'node:net';
import { types } from 'node:util';
import {
  AddressPolicy,
  createAddressPolicy,
  guardedLookup,
  isLoopbackAddress,
  isLoopbackHostname,
  literalAddress,
} from './address.policy';

/** Where the OAuth client may connect, and how much it waits for and reads. */
export interface OAuthNetworkOptions {
  /** Allow plain http, and loopback addresses, for localhost / 127.0.0.0/8 / ::1 — development and tests only. */
  allowInsecureLoopback?: boolean;
  /** CIDRs (e.g. '10.0.0.0/8', 'fd00::/8') that discovery may reach although they are private. */
  allowPrivateNetworks?: string[];
  /** Per request, connect to the end of the body. Default 5000. */
  timeoutMs?: number;
  /** Largest response body read. Default 256 * 1024. */
  maxResponseBytes?: number;
}

/** fetch-compatible: (url, init) → Response whose body is already fully read (bounded). */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Thrown (rejected) when a URL or an address is refused; message names the URL's origin and why. */
export class RefusedUrlError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RefusedUrlError';
  }
}

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024;
const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Statuses whose Response must have a null body (the Response constructor refuses one).
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
// What fetch drops when a redirect leaves the origin: a credential meant for one server never reaches another.
const CROSS_ORIGIN_DROPPED_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

interface Outgoing {
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/**
 * The `fetch` for every URL an OAuth flow learns from a server it does not trust (resource and authorization server
 * metadata, registration, token endpoint, client ID metadata documents): https only, no credentials in the URL, and
 * only public unicast addresses, checked when the socket connects (on the addresses it connects to, so DNS
 * rebinding is caught too). Redirects are returned as they are unless `redirect: 'follow'` is asked for a GET: then
 * at most 3 are followed, each target checked again. One deadline covers the whole call, redirects included; the
 * response body is read whole, up to `maxResponseBytes`, before the Response is returned.
 *
 * A refused URL or address rejects with {@link RefusedUrlError}, a network failure with `TypeError('fetch failed')`
 * (its `cause` the network error) as `fetch` does, an aborted call with the signal's reason.
 *
 * @example
 * ```ts
 * const guardedFetch = createGuardedFetch({ allowPrivateNetworks: ['10.0.0.0/8'] });
 * const metadata = await (await guardedFetch('https://auth.example.com/.well-known/oauth-authorization-server')).json();
 * // oauth4webapi: { [customFetch]: guardedFetch }
 * ```
 */
export function createGuardedFetch(options: OAuthNetworkOptions = {}): GuardedFetch {
  const allowLoopback = options.allowInsecureLoopback === true;
  const policy = createAddressPolicy({ allowLoopback, allowPrivateNetworks: options.allowPrivateNetworks ?? [] });
  const timeoutMs = setting(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs', 1);
  const maxBytes = setting(options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 'maxResponseBytes', 0);

  return async (input, init = {}) => {
    let target = new URL(input instanceof URL ? input.href : input);
    const outgoing = outgoingRequest(init);
    const follow = init.redirect === 'follow' && outgoing.method === 'GET';
    const userSignal = init.signal ?? undefined;
    if (userSignal?.aborted) throw userSignal.reason;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = userSignal ? AbortSignal.any([deadline.signal, userSignal]) : deadline.signal;
    const abortError = () =>
      userSignal?.aborted ? userSignal.reason : timedOut(`Request to ${target.origin} timed out after ${timeoutMs} ms`);
    try {
      for (let redirects = 0; ; redirects++) {
        const check = addressCheck(target, policy);
        const refused = urlRefusal(target, allowLoopback, check);
        if (refused) throw refused;
        const response = await exchange(target, outgoing, signal, abortError, maxBytes, guardedLookup(check));
        const location = response.headers.get('location');
        if (!follow || !REDIRECT_STATUSES.has(response.status) || location === null) return response;
        const next = redirectTarget(location, target);
        if (redirects === MAX_REDIRECTS)
          throw new TypeError('fetch failed', {
            cause: new Error(`More than ${MAX_REDIRECTS} redirects; the last one from ${target.origin}`),
          });
        if (next.origin !== target.origin)
          for (const name of CROSS_ORIGIN_DROPPED_HEADERS) delete outgoing.headers[name];
        target = next;
      }
    } finally {
      clearTimeout(timer);
    }
  };
}

function setting(value: number | undefined, fallback: number, name: string, least: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < least)
    throw new Error(`OAuthNetworkOptions.${name} must be a finite number of at least ${least}, not ${value}`);
  return value;
}

// Why the address a socket would connect to for `url` is refused, as the error to reject with. Plain http is allowed
// to a loopback host only: its addresses must then be loopback too, whatever else the policy allows.
function addressCheck(url: URL, policy: AddressPolicy): (address: string) => RefusedUrlError | undefined {
  return (address) => {
    const why =
      policy(address) ??
      (url.protocol === 'http:' && !isLoopbackAddress(address)
        ? `${address} is not a loopback address, and plain http is allowed only to loopback`
        : undefined);
    return why === undefined ? undefined : new RefusedUrlError(`Refused ${url.origin}: ${why}`);
  };
}

// Everything that can be refused before connecting. A host that is an IP address is never looked up, so it is
// checked here; a host name is checked by the lookup, on the addresses it resolves to.
function urlRefusal(
  url: URL,
  allowLoopback: boolean,
  check: (address: string) => RefusedUrlError | undefined,
): RefusedUrlError | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return new RefusedUrlError(`Refused a ${url.protocol} URL: only https is allowed`);
  if (url.username || url.password) return new RefusedUrlError(`Refused ${url.origin}: the URL carries credentials`);
  if (url.protocol === 'http:' && !(allowLoopback && isLoopbackHostname(url.hostname)))
    return new RefusedUrlError(
      `Refused ${url.origin}: plain http is allowed only to localhost, 127.0.0.0/8 or [::1], with allowInsecureLoopback`,
    );
  const literal = literalAddress(url.hostname);
  return literal === undefined ? undefined : check(literal);
}

function redirectTarget(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch (error) {
    throw new TypeError('fetch failed', {
      cause: new Error(`Invalid redirect location from ${base.origin}`, { cause: error }),
    });
  }
}

function outgoingRequest(init: RequestInit): Outgoing {
  const method = (init.method ?? 'GET').toUpperCase();
  const body = requestBody(init.body);
  if (body !== undefined && (method === 'GET' || method === 'HEAD'))
    throw new TypeError(`A ${method} request cannot have a body`);
  const headers = outgoingHeaders(init.headers);
  delete headers['content-length'];
  // As fetch: a POST without a body says so, rather than being sent chunked.
  if (body !== undefined || (method !== 'GET' && method !== 'HEAD'))
    headers['content-length'] = String(body?.length ?? 0);
  return { method, headers, body };
}

function requestBody(body: RequestInit['body']): Buffer | undefined {
  if (body == null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (Object.prototype.toString.call(body) === '[object URLSearchParams]') return Buffer.from(String(body), 'utf8');
  if (types.isUint8Array(body)) return Buffer.from(body);
  if (types.isArrayBuffer(body)) return Buffer.from(new Uint8Array(body));
  throw new TypeError('A guarded fetch sends a string, URLSearchParams or Uint8Array body only');
}

// Headers, [name, value] pairs or a record; checked by iteration rather than `instanceof`, which fails across realms.
function outgoingHeaders(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const entries: Iterable<readonly [string, unknown]> =
    Symbol.iterator in Object(headers)
      ? (headers as Iterable<readonly [string, string]>)
      : Object.entries(headers as Record<string, unknown>);
  for (const [name, raw] of entries) {
    const key = name.toLowerCase();
    const value = Array.isArray(raw) ? raw.join(', ') : String(raw);
    out[key] = key in out ? `${out[key]}, ${value}` : value;
  }
  return out;
}

function timedOut(message: string): Error {
  const error = new Error(message);
  error.name = 'TimeoutError';
  return error;
}

// One request and its whole (bounded) response, on a socket of its own.
function exchange(
  target: URL,
  outgoing: Outgoing,
  signal: AbortSignal,
  abortError: () => unknown,
  maxBytes: number,
  lookup: LookupFunction,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    if (signal.aborted) return reject(abortError());
    let request: ClientRequest;
    try {
      request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
        method: outgoing.method,
        headers: outgoing.headers,
        agent: false,
        lookup,
      });
    } catch (error) {
      return reject(new TypeError('fetch failed', { cause: error }));
    }
    const onAbort = () => fail(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    const fail = (error: unknown) => {
      signal.removeEventListener('abort', onAbort);
      request.destroy();
      reject(error);
    };
    const failed = (cause: unknown) =>
      fail(cause instanceof RefusedUrlError ? cause : new TypeError('fetch failed', { cause }));
    const tooLarge = () => fail(new Error(`The response from ${target.origin} exceeded ${maxBytes} bytes`));

    request.on('error', failed);
    request.on('response', (incoming) => {
      if (Number(incoming.headers['content-length']) > maxBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return tooLarge();
        chunks.push(chunk);
      });
      incoming.on('error', failed);
      incoming.on('close', () => {
        if (!incoming.complete)
          failed(new Error(`The connection to ${target.origin} closed before the response ended`));
      });
      incoming.on('end', () => {
        signal.removeEventListener('abort', onAbort);
        try {
          resolve(toResponse(incoming, Buffer.concat(chunks, size), outgoing.method, target));
        } catch (error) {
          failed(error);
        }
      });
    });
    request.end(outgoing.body);
  });
}

function toResponse(incoming: IncomingMessage, body: Buffer, method: string, url: URL): Response {
  const status = incoming.statusCode ?? 0;
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  const nullBody = NULL_BODY_STATUSES.has(status) || method === 'HEAD';
  const response = new Response(nullBody ? null : body, { status, statusText: incoming.statusMessage, headers });
  // As fetch's: where the response came from, once redirects are followed.
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}

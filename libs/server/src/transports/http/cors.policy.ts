import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { McpCorsOptions } from '../../interfaces/mcp-module-options.interface';
import { HeaderVerdicts } from './header-verdicts';
import { normalizeOrigin } from './host-origin.check';
import { headerValue } from './http-request.util';
import { sendEmpty, sendError } from './http-response.util';

/** Methods a preflight allows. */
export const CORS_ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS';
/** Response headers a browser client may read. */
export const CORS_EXPOSED_HEADERS = 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate';
/** Request headers an MCP client sends (besides `Mcp-Param-*`), allowed by every preflight. */
export const MCP_REQUEST_HEADERS: readonly string[] = [
  'content-type',
  'accept',
  'authorization',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'mcp-method',
  'mcp-name',
];
export const DEFAULT_CORS_MAX_AGE_SECONDS = 600;

const PARAM_HEADER_PREFIX = 'mcp-param-';

/**
 * The CORS policy of the MCP endpoints (`http.cors`): which origins it allows, what a preflight answers, and the
 * headers of an actual response. Decisions on an Origin value are remembered (bounded), like the Origin check's.
 */
export class CorsPolicy {
  readonly maxAgeSeconds: number;
  readonly credentials: boolean;
  private readonly origins: ReadonlySet<string> | '*';
  private readonly headers: ReadonlySet<string>;
  // The fixed `Access-Control-Allow-Headers` list, answered when a preflight asks for something else too.
  private readonly headerList: string;
  private readonly verdicts = new HeaderVerdicts((origin) => this.decide(origin));

  /** Throws on an origin that is not a bare `scheme://host[:port]`, on `'*'` with credentials, or a bad max age. */
  constructor(options: McpCorsOptions) {
    const { origins, credentials = false, maxAgeSeconds = DEFAULT_CORS_MAX_AGE_SECONDS } = options;
    if (origins === '*') {
      if (credentials) throw new Error('MCP HTTP option cors: credentials need an explicit list of origins, not "*"');
      this.origins = '*';
    } else if (Array.isArray(origins)) {
      this.origins = new Set(
        origins.map((origin) => {
          const normalized = normalizeOrigin(origin);
          if (!normalized)
            throw new Error(`MCP HTTP option cors.origins: not an origin (scheme://host[:port]): ${origin}`);
          return normalized;
        }),
      );
    } else {
      throw new Error('MCP HTTP option cors.origins must be a list of origins or "*"');
    }
    if (!Number.isSafeInteger(maxAgeSeconds) || maxAgeSeconds < 0)
      throw new Error('MCP HTTP option cors.maxAgeSeconds must be an integer >= 0');
    this.maxAgeSeconds = maxAgeSeconds;
    this.credentials = credentials;
    const extra = (options.allowedHeaders ?? []).map((name) => name.trim().toLowerCase()).filter(Boolean);
    this.headers = new Set([...MCP_REQUEST_HEADERS, ...extra]);
    this.headerList = [...this.headers].join(', ');
  }

  /** Whether `origin` (an `Origin` header value) is allowed. `'*'` allows any well-formed origin, never `null`. */
  allowsOrigin(origin: string): boolean {
    return this.verdicts.of(origin);
  }

  /** The `Access-Control-Allow-Headers` answer to a preflight's `Access-Control-Request-Headers`. */
  allowedHeadersFor(requested: string | undefined): string {
    const names = (requested ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
    if (names.every((name) => this.allowsHeader(name))) return names.length > 0 ? names.join(', ') : this.headerList;
    const params = names.filter(
      (name) => name.startsWith(PARAM_HEADER_PREFIX) && name.length > PARAM_HEADER_PREFIX.length,
    );
    return params.length > 0 ? `${this.headerList}, ${params.join(', ')}` : this.headerList;
  }

  /** The headers of a preflight's 204 for an allowed origin. */
  preflightHeaders(origin: string, requestedHeaders: string | undefined): OutgoingHttpHeaders {
    const headers: OutgoingHttpHeaders = {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': CORS_ALLOWED_METHODS,
      'Access-Control-Allow-Headers': this.allowedHeadersFor(requestedHeaders),
      'Access-Control-Max-Age': String(this.maxAgeSeconds),
      Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    };
    if (this.credentials) headers['Access-Control-Allow-Credentials'] = 'true';
    return headers;
  }

  private allowsHeader(name: string): boolean {
    return this.headers.has(name) || (name.startsWith(PARAM_HEADER_PREFIX) && name.length > PARAM_HEADER_PREFIX.length);
  }

  private decide(origin: string): boolean {
    const normalized = normalizeOrigin(origin);
    return normalized !== undefined && (this.origins === '*' || this.origins.has(normalized));
  }
}

/**
 * Applies CORS to a request that passed the Host and Origin checks: answers a preflight (`OPTIONS` with `Origin` and
 * `Access-Control-Request-Method`) with 204, or 403 for an origin CORS does not allow, and returns true; otherwise
 * sets the CORS headers the response will carry (`Vary: Origin`, and for an allowed origin `Access-Control-Allow-Origin`
 * and `Access-Control-Expose-Headers`) and returns false.
 */
export function answersCors(req: IncomingMessage, res: ServerResponse, cors: CorsPolicy): boolean {
  const origin = headerValue(req, 'origin');
  const allowed = origin !== undefined && cors.allowsOrigin(origin);
  if (req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined) {
    if (!allowed) {
      sendError(res, 403, 'Forbidden: Origin not allowed by CORS', { headers: { Vary: 'Origin' } });
      return true;
    }
    sendEmpty(res, 204, cors.preflightHeaders(origin, headerValue(req, 'access-control-request-headers')));
    return true;
  }
  res.setHeader('Vary', 'Origin');
  if (allowed) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
    if (cors.credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
  }
  return false;
}

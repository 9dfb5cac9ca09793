import type { PausableDeadline } from './client-transport.interface';
import { nodeHttpFetch } from './node-http.fetch';
import { fetchSameOrigin } from './same-origin.fetch';

/** A value, or a promise of it. */
type Awaitable<T> = T | Promise<T>;

/** A request the server refused with 401 or 403. */
export interface McpHttpRefusal {
  status: 401 | 403;
  /** The refusal's `WWW-Authenticate`, if any. */
  challenge: string | undefined;
  url: URL;
  /** The headers `headers` gave that request (to tell a refused token from a newer one). */
  sent: Record<string, string> | undefined;
  /** The refusal's own headers (a DPoP server's `DPoP-Nonce`). */
  responseHeaders: Headers;
}

/**
 * Authorization of the HTTP requests to one server (the OAuth client fills it; any scheme can). `headers` is asked
 * before every request; when the server answers 401 or 403, `unauthorized` may re-authorize (a new token, a wider
 * scope) and ask for a retry of that request, with fresh headers (twice at most: a new token, then a step-up).
 *
 * @example
 * const auth: McpHttpAuthProvider = {
 *   headers: () => ({ Authorization: `Bearer ${tokens.current}` }),
 *   unauthorized: async ({ status }) => status === 401 && (await tokens.refresh()),
 * };
 * McpClientModule.forRoot({ name: 'app', servers: [{ id: 'api', transport: { type: 'http', url, auth } }] });
 */
export interface McpHttpAuthProvider {
  /**
   * Headers for one request (`method`) to `url` (e.g. `Authorization`, a DPoP proof); they win over the configured
   * ones.
   */
  headers(url: URL, method: string): Awaitable<Record<string, string> | undefined>;
  /**
   * The server refused a request with 401 or 403. Resolve true to send that request once more, with fresh `headers`;
   * false (or absent) hands the refusal to the caller; a rejection fails the request with its error.
   */
  unauthorized?(refusal: McpHttpRefusal): Awaitable<boolean>;
}

/** Where an HTTP server is, and what every request to it carries (both HTTP transports' config). */
export interface HttpServerConfig {
  url: string;
  /** Sent with every request (e.g. a fixed `Authorization`). */
  headers?: Record<string, string>;
  /** Authorization per request, re-authorized on 401/403. */
  auth?: McpHttpAuthProvider;
}

/** How requests are sent (both HTTP transports' options). */
export interface HttpSendOptions {
  /** Default: `node:http` with keep-alive (see `nodeHttpFetch`), several times cheaper per request than the global `fetch`. */
  fetch?: typeof fetch;
  /** Largest JSON body or SSE event accepted from the server. Default 10 MiB. */
  maxMessageBytes?: number;
}

/** One HTTP request of a transport: its own headers, in increasing precedence. */
export interface HttpClientRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** The transport's state (`Mcp-Session-Id`). */
  session?: Record<string, string>;
  /** The message's own (`Mcp-Method`, `Mcp-Name`, …). */
  message?: Record<string, string>;
  /** What the request kind fixes (`Accept`, `Content-Type`, `Last-Event-ID`). */
  fixed: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Paused while `unauthorized` re-authorizes. */
  deadline?: PausableDeadline;
}

const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Re-authorizations of one request: a token, then a wider scope. */
const MAX_AUTHORIZATION_RETRIES = 2;

/**
 * What the two HTTP transports share about one server: where it is, how requests are sent (the fetch, redirects
 * kept within its origin, the size limit), which headers go with them (configured, then `MCP-Protocol-Version`,
 * then the authorization's, the transport's, the message's and the request kind's), re-authorization and retries
 * on 401/403, and network failures that name the server and their cause.
 */
export class HttpClientSession {
  readonly url: URL;
  readonly origin: string;
  readonly maxMessageBytes: number;
  /** Sent as `MCP-Protocol-Version` once set (the negotiated revision). */
  protocolVersion: string | undefined;
  private readonly fetchFn: typeof fetch;
  private readonly configured: Record<string, string>;
  private readonly auth: McpHttpAuthProvider | undefined;

  constructor(config: HttpServerConfig, options: HttpSendOptions = {}) {
    this.url = new URL(config.url);
    this.origin = this.url.origin;
    this.fetchFn = options.fetch ?? nodeHttpFetch;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.configured = config.headers ?? {};
    this.auth = config.auth;
  }

  /**
   * Sends one request to `target` (the server's URL unless given), following redirects within its origin only.
   * Rejects when nothing answered: with the signal's reason when aborted, else an error naming the URL and the
   * network's cause (`ECONNREFUSED`, a DNS or TLS failure).
   */
  send(request: HttpClientRequest, target: URL = this.url): Promise<Response> {
    // Without an authorization provider, the request goes straight out: no extra promise on the hot path.
    return this.auth ? this.sendAuthorized(request, target, this.auth) : this.fetchOnce(request, target, undefined);
  }

  private async sendAuthorized(request: HttpClientRequest, target: URL, auth: McpHttpAuthProvider): Promise<Response> {
    let sent = await auth.headers(target, request.method);
    let response = await this.fetchOnce(request, target, sent);
    for (let retries = 0; retries < MAX_AUTHORIZATION_RETRIES; retries++) {
      if ((response.status !== 401 && response.status !== 403) || !auth.unauthorized) break;
      const refusal = response;
      request.deadline?.pause();
      let retry: boolean;
      try {
        retry = await auth.unauthorized({
          status: refusal.status as 401 | 403,
          challenge: refusal.headers.get('www-authenticate') ?? undefined,
          url: target,
          sent,
          responseHeaders: refusal.headers,
        });
      } finally {
        request.deadline?.resume();
      }
      if (!retry) break;
      void refusal.body?.cancel().catch(() => undefined);
      sent = await auth.headers(target, request.method);
      response = await this.fetchOnce(request, target, sent);
    }
    return response;
  }

  private fetchOnce(
    request: HttpClientRequest,
    target: URL,
    authorization: Record<string, string> | undefined,
  ): Promise<Response> {
    let headers: Headers;
    try {
      headers = new Headers(this.configured);
      if (this.protocolVersion) headers.set('MCP-Protocol-Version', this.protocolVersion);
      setAll(headers, authorization);
      setAll(headers, request.session);
      setAll(headers, request.message);
      setAll(headers, request.fixed);
    } catch (error) {
      return Promise.reject(error as Error); // a header value no request may carry (a line break): a rejection too
    }
    const init: RequestInit = { method: request.method, headers, body: request.body, signal: request.signal };
    return fetchSameOrigin(this.fetchFn, target, init);
  }
}

function setAll(headers: Headers, layer: Record<string, string> | undefined): void {
  if (layer) for (const name in layer) headers.set(name, layer[name]);
}

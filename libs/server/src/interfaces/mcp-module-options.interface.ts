import type { McpAuthenticator } from '../auth/mcp-authenticator.interface';
import type { TransportFacts } from '../dispatch/transport-facts.interface';
import { Era, Icon } from '@conduit-mcp/core';
import type { McpEventBus } from '../events/mcp-event.bus';
import type { SessionStore } from '../session/session.store';
import type { TaskStore } from '../tasks/task.store';
import type { EventStore } from '../transports/http/event.store';

/** Options of the Streamable HTTP (and legacy HTTP+SSE) transport. */
export interface McpHttpOptions {
  /** Endpoint path. Default `/mcp`. */
  path?: string;
  /**
   * `server` (default): answered on the HTTP adapter's `http.Server` ahead of the router (Express or Fastify), so
   * MCP requests pay no framework routing or body parsing. `express`: an ordinary Express route, so app middleware
   * sees MCP requests. `fastify`: Fastify routes, so the app's Fastify hooks see them. A framework mount that does not
   * fit the app's adapter is refused at start-up.
   */
  mount?: 'server' | 'express' | 'fastify';
  /** `stateful` (default) issues `Mcp-Session-Id`; `stateless` serves each request on its own. */
  sessionMode?: 'stateful' | 'stateless';
  /** Host header values accepted (host or host:port). Default: loopback names only. `false` turns the check off. */
  allowedHosts?: string[] | false;
  /** Origin header values accepted. Default: loopback origins only. `false` turns the check off. */
  allowedOrigins?: string[] | false;
  /** Request body limit in bytes. Default 4 MiB. */
  bodyLimit?: number;
  /** Interval of keep-alive comments on idle SSE streams. Default 15 000 ms. */
  keepAliveMs?: number;
  /** Most live sessions; the least recently used is evicted past it. Default 10 000. */
  maxSessions?: number;
  /**
   * A session unused this long on this instance is ended here; the default store drops its record after as long.
   * Default 30 minutes.
   */
  sessionIdleMs?: number;
  /** Legacy HTTP+SSE transport (2024-11-05): `GET /sse` + `POST /message`. Default on; `false` turns it off. */
  legacySse?: { ssePath?: string; messagePath?: string } | false;
  /**
   * Decides, for every HTTP request that passed the Host and Origin checks and before its body is read, whether it
   * may reach the server; what it establishes is `ctx.auth`. Default: none (every request goes through).
   */
  authenticator?: McpAuthenticator;
  /**
   * CORS answered by the MCP endpoints themselves (preflights included), for browser clients. Default off (`OPTIONS`
   * is 405). An origin CORS allows is also accepted by the Origin check.
   */
  cors?: McpCorsOptions | false;
}

/** CORS of the MCP HTTP endpoints (`http.cors`). */
export interface McpCorsOptions {
  /**
   * Origins allowed (`https://app.example.com`), echoed in `Access-Control-Allow-Origin`; they also pass the Origin
   * check. `'*'`: any origin, the Origin check then accepting any too (not with `credentials`).
   */
  origins: string[] | '*';
  /** How long a browser may cache a preflight (`Access-Control-Max-Age`). Default 600 s. */
  maxAgeSeconds?: number;
  /** Allow cookies and HTTP authentication (`Access-Control-Allow-Credentials: true`). Default false. */
  credentials?: boolean;
  /**
   * Request headers allowed beyond the MCP ones (`content-type`, `accept`, `authorization`, `mcp-session-id`,
   * `mcp-protocol-version`, `last-event-id`, `mcp-method`, `mcp-name`, `mcp-param-*`), e.g. `x-api-key`.
   */
  allowedHeaders?: string[];
}

/** Options of one MCP server (`McpModule.forRoot`). */
export interface McpModuleOptions {
  /** Server name, advertised in `serverInfo`; also names the server when an app has several. */
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  /** Instructions sent to the client in the `initialize` result. */
  instructions?: string;
  /** Streamable HTTP options, or `false` for no HTTP endpoint (stdio only). Default `{ path: '/mcp' }`. */
  http?: McpHttpOptions | false;
  /**
   * Where session records are kept (shared by the instances of a server). Default: an `InMemorySessionStore`
   * bounded by `http.maxSessions` and `http.sessionIdleMs`. `forRootAsync` factories can build one from an
   * injected client (`@conduit-mcp/redis`).
   */
  sessionStore?: SessionStore;
  /** Carries list changes, resource updates and cross-instance messages. Default: an `InMemoryEventBus`. */
  eventBus?: McpEventBus;
  /** Where tasks are kept, bound to their owners. Default: an `InMemoryTaskStore`. */
  taskStore?: TaskStore;
  /** Where SSE events are kept for `Last-Event-ID` resumption. Default: an `InMemoryEventStore`. */
  eventStore?: EventStore;
  /** Items per page of `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`. Default 100. */
  pageSize?: number;
  /** Most in-flight requests per session; more are refused with -32000. Default 64. */
  maxInFlightPerSession?: number;
  /** Timeout of a server-to-client request (elicitation, sampling, roots; legacy era). Default 5 minutes. */
  inputTimeoutMs?: number;
  /** Protocol eras served: `legacy` (initialize, sessions; 2024-11-05 … 2025-11-25), `modern` (2026-07-28). Default both. */
  eras?: Era[];
  /** Default caching hints of modern-era results; `@McpTool`, `@McpResource`, `@McpPrompt` may override. Default `{ ttlMs: 0, scope: 'private' }`. */
  cache?: McpCacheHint;
  /** Sealing of `requestState` in modern-era multi round-trip requests. */
  requestState?: McpRequestStateOptions;
  /** Most `subscriptions/listen` streams open at once. Default 1 000. */
  maxSubscriptions?: number;
}

/**
 * Caching hints of modern-era results (`ttlMs`, `cacheScope`) for `server/discover`, the lists and
 * `resources/read`. `public` results may be shared across callers by intermediaries; `private` ones only within one
 * authorization context.
 */
export interface McpCacheHint {
  /** How long the client may consider the result fresh, in ms. */
  ttlMs?: number;
  scope?: 'public' | 'private';
}

/** How the state of a modern-era multi round-trip request is sealed into `requestState`. */
export interface McpRequestStateOptions {
  /**
   * HMAC-SHA256 key, at least 16 bytes. Default: a random key per process (a warning is logged), which breaks
   * retries that land on another instance: give every instance behind one endpoint the same secret.
   */
  secret?: string | Buffer;
  /** How long a sealed state stays valid. Default 10 minutes. */
  ttlMs?: number;
  /**
   * The authenticated caller a state is bound to (another caller's state is refused), from what the transport knows
   * of the request (its headers, Origin; `raw` is the HTTP `IncomingMessage`). Default: none.
   */
  principal?: (transport: TransportFacts) => string | undefined;
}

import type { McpAuthenticator } from '../auth/mcp-authenticator.interface';
import type { McpAuthOptions } from '../auth/mcp-auth-options.interface';
import type { TransportFacts } from '../dispatch/transport-facts.interface';
import { Era, Icon } from '@conduit-mcp/core';
import type { McpEventBus } from '../events/mcp-event.bus';
import type { SessionStore } from '../session/session.store';
import type { TaskStore } from '../tasks/task.store';
import type { McpTaskQueue } from '../tasks/task.queue';
import type { McpTaskLimits } from '../tasks/mcp-task.runner';
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
  /**
   * After a refusal that leaves the body unread (413, or the authenticator's 401/403), the rest of the body is read
   * and thrown away, up to this many bytes, so that the client gets to read the answer instead of a reset connection;
   * a body with more left is cut off (`0`: at once). Default 8 MiB.
   */
  bodyDrainLimit?: number;
  /** How long the rest of a body refused unread is read and thrown away before the connection is cut. Default 5 000 ms. */
  bodyDrainTimeoutMs?: number;
  /**
   * Most messages in a JSON-RPC batch, on a session (or a stateless request) at a revision that has batches
   * (2025-03-26 and older); a longer one is refused with 400 and -32600. Default 32.
   */
  maxBatchLength?: number;
  /** Interval of keep-alive comments on idle SSE streams. Default 15 000 ms. */
  keepAliveMs?: number;
  /**
   * Bytes an SSE response may hold that its client has not read yet; a client that lets more pile up is cut off (the
   * connection is closed; a stateful session's stream can be resumed with `Last-Event-ID`). Default 8 MiB.
   */
  maxSseBufferBytes?: number;
  /**
   * Most live sessions. Past it a new session (`initialize`, an HTTP+SSE `GET`) is refused with 503 and `Retry-After`;
   * no session is ended to make room, except those idle past `sessionIdleMs`. Default 10 000.
   */
  maxSessions?: number;
  /**
   * Most live sessions of one caller: its principal (the token's subject, else `client:<clientId>`), or, for an
   * anonymous caller, its address (an IPv6 address by its /64). Refused as past `maxSessions`. Default 1 000.
   */
  maxSessionsPerPrincipal?: number;
  /** The `Retry-After` (seconds) of a 503 refusing a session or a connection past a bound. Default 30. */
  retryAfterSeconds?: number;
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
  /**
   * Timeouts and connection caps set on the app's HTTP server (`app.getHttpServer()`) at start-up, for every request
   * it serves, MCP or not. `false` leaves the server as the app configured it.
   */
  connections?: McpHttpConnectionOptions | false;
}

/** Timeouts and connection caps of the app's HTTP server (`http.connections`). */
export interface McpHttpConnectionOptions {
  /** Most connections open at once; more are answered 503 with `Retry-After` and closed, unread. Default 1 024. */
  max?: number;
  /**
   * Most connections open at once from one client address (an IPv6 address by its /64); refused as past `max`.
   * Behind a reverse proxy every client has the proxy's address: raise it there. Default 128.
   */
  maxPerAddress?: number;
  /** How long a client may take to send a request's headers (`server.headersTimeout`); 408 past it. Default 10 000 ms. */
  headersTimeoutMs?: number;
  /** How long a client may take to send a whole request, body included (`server.requestTimeout`); 408 past it. Default 30 000 ms. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept between requests (`server.keepAliveTimeout`). Default 5 000 ms. */
  keepAliveTimeoutMs?: number;
  /**
   * A connection on which nothing moves this long is closed (`server.timeout`), unless it is waiting for the server
   * itself (a handler still running, an SSE stream with nothing to send). Default 60 000 ms.
   */
  idleTimeoutMs?: number;
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
   * The server as an OAuth 2.1 resource server: a `Bearer` token on every HTTP request, checked by `auth.token`, and
   * the protected resource metadata served beside the endpoint. Excludes `http.authenticator`; stdio has no HTTP auth.
   */
  auth?: McpAuthOptions;
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
  /**
   * Where the tasks of durable tools (`@McpTool({ durable: true })`) are queued for worker processes
   * (`@conduit-mcp/redis`'s `RedisTaskQueue`, run by `McpTaskWorker`). Default: none, durable tools run their tasks
   * in the instance.
   */
  taskQueue?: McpTaskQueue;
  /**
   * Bounds of the tasks tools run as (`@McpTool({ task })`): retention by default (1 h) and at most (24 h), the
   * polling interval suggested to clients (1 s), and the most tasks running at once on this instance (100).
   */
  tasks?: McpTaskLimits;
  /** Where SSE events are kept for `Last-Event-ID` resumption. Default: an `InMemoryEventStore`. */
  eventStore?: EventStore;
  /** Items per page of `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`. Default 100. */
  pageSize?: number;
  /** Most in-flight requests per session; more are refused with -32000. Default 64. */
  maxInFlightPerSession?: number;
  /** Timeout of a server-to-client request (elicitation, sampling, roots; legacy era). Default 5 minutes. */
  inputTimeoutMs?: number;
  /**
   * Most server-to-client requests of one session waiting for the client's answer (legacy era); past it `ctx.input.*`
   * rejects at once with -32000. Default 16.
   */
  maxPendingInputPerSession?: number;
  /**
   * Most bytes (their params' JSON size) of the server-to-client requests of one session waiting for an answer
   * (legacy era); a question that would pass it is refused like one past `maxPendingInputPerSession`. Default 8 MiB.
   */
  maxPendingInputBytesPerSession?: number;
  /**
   * Most bytes (JSON size, estimated) of the pages of one list (`tools/list`, …) kept for reuse; past it the oldest
   * pages are dropped, and a page larger than it is built for each request. Default 8 MiB.
   */
  maxListCacheBytes?: number;
  /** Protocol eras served: `legacy` (initialize, sessions; 2024-11-05 … 2025-11-25), `modern` (2026-07-28). Default both. */
  eras?: Era[];
  /** Default caching hints of modern-era results; `@McpTool`, `@McpResource`, `@McpPrompt` may override. Default `{ ttlMs: 0, scope: 'private' }`. */
  cache?: McpCacheHint;
  /** Sealing of `requestState` in modern-era multi round-trip requests. */
  requestState?: McpRequestStateOptions;
  /** Most `subscriptions/listen` streams open at once. Default 1 000. */
  maxSubscriptions?: number;
  /**
   * At shutdown (`app.close()`, or a signal with `app.enableShutdownHooks()`), how long the requests in flight get to
   * finish while new ones are refused (-32000, HTTP 503) and the HTTP server accepts no new connection. Those still
   * running are then cancelled (their `ctx.signal` aborts), every stream and session ends, and a second later the HTTP
   * server's remaining connections are closed. Default 10 000 ms.
   */
  shutdownGraceMs?: number;
  /**
   * Bounds on `tools/call` arguments, checked before they are validated: past one, the call is refused with -32602
   * naming it, whatever the tool.
   */
  arguments?: McpArgumentLimits;
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
   * HMAC-SHA256 key (16 to 4096 bytes) sealing `requestState` and signing list cursors, or a list of 1 to 8 such keys
   * for rotations: the first seals, every one opens what it sealed (a sealed state names its key by a short id, never
   * the key; a state naming a key not listed is refused like a forged one). To rotate: deploy `[new, old]` on every
   * instance, then, once the last `[old]` instance is gone and `ttlMs` has passed, `[new]` (deploying `[old, new]`
   * first spares the states an upgraded instance seals while others still hold `[old]` alone). An empty list, a
   * repeated or short key, or more than 8 stop the app at start-up. Default: a random key per process (a warning is
   * logged), which breaks retries that land on another instance: give every instance behind one endpoint the same
   * secret.
   */
  secret?: string | Buffer | readonly (string | Buffer)[];
  /** How long a sealed state stays valid. Default 10 minutes. */
  ttlMs?: number;
  /**
   * The caller a state is bound to (another caller's state is refused with -32602), from what the transport knows of
   * the request (`auth`, its headers, Origin; `raw` is the HTTP `IncomingMessage`). Default: the authenticated
   * caller's principal, the key sessions and tasks are bound to too: the token's subject, else `client:<clientId>`;
   * nobody when the request is unauthenticated (stdio, HTTP without `auth` or `http.authenticator`). When given, this
   * hook replaces the default, also when it returns undefined.
   */
  principal?: (transport: TransportFacts) => string | undefined;
}

/** Bounds on the arguments of a `tools/call` (`arguments`); each past one is refused with -32602. */
export interface McpArgumentLimits {
  /** Most object keys and array items in all the arguments. Default 10 000. */
  maxKeys?: number;
  /**
   * Most keys of any one object in the arguments. An object whose schema admits no property beyond those it declares
   * (a DTO class, `additionalProperties: false`) may hold no more keys than its declared properties. Default 256.
   */
  maxObjectKeys?: number;
  /** Deepest nesting of objects and arrays, the arguments object being level 1. Default 32. */
  maxDepth?: number;
  /** Longest string, keys included, in UTF-16 code units. Default 1 048 576. */
  maxStringLength?: number;
}

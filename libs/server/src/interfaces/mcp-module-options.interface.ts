import { Icon } from '@conduit-mcp/core';

/** Options of the Streamable HTTP (and legacy HTTP+SSE) transport. */
export interface McpHttpOptions {
  /** Endpoint path. Default `/mcp`. */
  path?: string;
  /**
   * `server` (default): answered on the HTTP adapter's `http.Server` ahead of the Express router, so MCP requests
   * pay no Express routing or body parsing. `express`: an ordinary Express route, so app middleware sees MCP requests.
   */
  mount?: 'server' | 'express';
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
  /** A session unused this long is ended. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Legacy HTTP+SSE transport (2024-11-05): `GET /sse` + `POST /message`. Default on; `false` turns it off. */
  legacySse?: { ssePath?: string; messagePath?: string } | false;
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
  /** Items per page of `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`. Default 100. */
  pageSize?: number;
  /** Most in-flight requests per session; more are refused with -32000. Default 64. */
  maxInFlightPerSession?: number;
  /** Timeout of a server-to-client request (elicitation, sampling, roots). Default 5 minutes. */
  inputTimeoutMs?: number;
}

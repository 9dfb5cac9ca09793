import type { McpClientCheckChoice, McpClientCheckName } from '../safety/client-check.types';
import type { McpHttpAuth } from '../auth/http-auth.resolver';
import type { HttpServerConfig } from '../transports/http-client.session';

/** An HTTP server's config in the module options: `auth` may also be OAuth options (`McpOAuthOptions`). */
export type McpHttpServerConfig = Omit<HttpServerConfig, 'auth'> & {
  /** A provider of its own, or OAuth 2.1 (`McpOAuthOptions`): re-authorized on 401/403. */
  auth?: McpHttpAuth;
};

/** How to reach one MCP server. */
export type McpServerTransportConfig =
  | {
      type: 'stdio';
      command: string;
      args?: string[];
      /** Added to the safelisted environment (PATH, HOME, …) the child gets; nothing else of ours leaks. */
      env?: Record<string, string>;
      cwd?: string;
    }
  /** Streamable HTTP: `headers` go with every request; `auth` adds its own, re-authorized on 401/403. */
  | ({ type: 'http' } & McpHttpServerConfig)
  /** The deprecated HTTP+SSE transport (2024-11-05), configured alike. */
  | ({ type: 'sse' } & McpHttpServerConfig);

/** One server the client connects to. */
export interface McpServerConfig {
  /** Operator-assigned id: names the server in `@InjectMcpClient(id)`, handler contexts and logs. */
  id: string;
  transport: McpServerTransportConfig;
  /**
   * `auto` (default): probe `server/discover`, fall back to `initialize`. `legacy` / `modern`: the newest revision
   * of that era, no probe. A revision string pins that revision.
   */
  era?: 'auto' | 'legacy' | 'modern' | string;
  /** Connect when the module starts (default true). */
  connectOnStart?: boolean;
}

/** A token bucket: `rate` per second, bursts of `burst`. */
export interface McpRateLimit {
  rate: number;
  burst: number;
}

/** Options of `McpClientModule.forRoot`. */
export interface McpClientModuleOptions {
  /** Client name, sent as `clientInfo.name` and handed to every handler's context. */
  name: string;
  version?: string;
  /** Default `assigns` of handler contexts (a call's own `assigns` win). */
  assigns?: Record<string, unknown>;
  servers: McpServerConfig[];
  /** Default timeout of a request to a server. Default 60 s. */
  requestTimeoutMs?: number;
  /** How long a handler may answer a server's question. Default 60 s (elicitation: `elicitationTimeoutMs`). */
  handlerTimeoutMs?: number;
  /** Default 5 minutes: a person answers elicitations. */
  elicitationTimeoutMs?: number;
  /** Legacy era: server requests handled at once; over it the server gets -32000 busy. Default 8. */
  maxServerRequests?: number;
  /** Questions (requests or MRTR inputs) per server. Default 10/s, bursts of 20. */
  inputRateLimit?: McpRateLimit;
  sampling?: {
    /** `maxTokens` is clamped to this. Default 4096. */
    maxTokens?: number;
    /** Allow `includeContext` other than `none`. Default false. */
    context?: boolean;
    /** Answer legacy sampling requests that arrive with no call in flight. Default false. */
    allowIdle?: boolean;
    /** Most assistant `tool_use` turns a sampling request may already hold. Default 5. */
    maxToolIterations?: number;
    /** JSON-RPC code of sampling refusals. Default -1. */
    rejectionCode?: number;
  };
  elicitation?: {
    /**
     * The origin URL-mode elicitations are compared with (`originMismatch`). When set, it wins over the origin the
     * transport reports (the server's public origin behind a proxy or tunnel); else the transport's (HTTP), if any.
     */
    origin?: string;
  };
  /** Server log entries per connection. Default 50/s, bursts of 100. */
  logRateLimit?: McpRateLimit;
  /**
   * Most notifications (log entries included) of one connection waiting for their handlers; past it new ones are
   * dropped (a warning is logged). Default 1 000.
   */
  maxQueuedNotifications?: number;
  /** Most bytes (JSON size, estimated) of the notifications of one connection waiting; dropped past it. Default 8 MiB. */
  maxQueuedNotificationBytes?: number;
  /** Most MRTR rounds of one call. Default 10. */
  maxInputRounds?: number;
  /**
   * Most pages one `listTools()` / `listResources()` / `listResourceTemplates()` / `listPrompts()` follows. Default
   * 100. Past any of the list limits the call fails with kind `protocol` naming it (`{ cursor, all: false }` goes page
   * by page); the call's `timeout` and `maxTotalTimeout` bound all its pages together.
   */
  maxListPages?: number;
  /** Most items of one such listing; also the most tool declarations kept for `Mcp-Param-*` headers. Default 10 000. */
  maxListItems?: number;
  /**
   * Most bytes of one such listing (its items and cursors as JSON); also the most bytes (names and header paths) of
   * the tool declarations kept for `Mcp-Param-*` headers. Default 32 MiB.
   */
  maxListBytes?: number;
  /**
   * Replaces a built-in check with a class of yours (best a subclass of it, resolved from the app's providers or
   * created with the client module's), or disables it with `false`. Each choice is logged at start-up.
   * See "What protects your handlers" in the README.
   */
  checks?: Partial<Record<McpClientCheckName, McpClientCheckChoice>>;
}

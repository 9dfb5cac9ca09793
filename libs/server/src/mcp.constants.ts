/** The ExecutionContext type of MCP handlers: `context.getType<McpContextType>() === 'mcp'`. */
export const MCP_CONTEXT_TYPE = 'mcp';
export type McpContextType = typeof MCP_CONTEXT_TYPE;

export const MCP_TOOL_METADATA = 'conduit-mcp:tool';
export const MCP_RESOURCE_METADATA = 'conduit-mcp:resource';
export const MCP_PROMPT_METADATA = 'conduit-mcp:prompt';
export const MCP_COMPLETION_METADATA = 'conduit-mcp:completion';
export const MCP_PARAMS_METADATA = 'conduit-mcp:params';
export const MCP_SCOPES_METADATA = 'conduit-mcp:scopes';

/** Parameter kinds of `@McpArgs()` and `@McpCtx()`, as seen by pipes in `ArgumentMetadata.type`. */
export enum McpParamType {
  ARGS = 0,
  CONTEXT = 1,
}

export const DEFAULT_HTTP_PATH = '/mcp';
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
export const DEFAULT_PAGE_SIZE = 100;
export const DEFAULT_MAX_IN_FLIGHT = 64;
export const DEFAULT_INPUT_TIMEOUT_MS = 5 * 60_000;
/** Most server-to-client requests (legacy `ctx.input.*`) of one session waiting for the client's answer. */
export const DEFAULT_MAX_PENDING_INPUT = 16;
/** Most bytes (their params' JSON size) of the server-to-client requests of one session waiting for an answer. */
export const DEFAULT_MAX_PENDING_INPUT_BYTES = 8 * 1024 * 1024;
/** Most bytes (estimated JSON size) of the pages of one list kept for reuse. */
export const DEFAULT_MAX_LIST_CACHE_BYTES = 8 * 1024 * 1024;
/** Most completion values returned by `completion/complete`, per the specification. */
export const MAX_COMPLETION_VALUES = 100;
/** Longest resource URI accepted (`resources/read`, subscriptions). */
export const MAX_URI_LENGTH = 8_192;
export const DEFAULT_MAX_SUBSCRIPTIONS = 1_000;
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** The ExecutionContext type of client handlers: `context.getType() === 'mcp-client'`. */
export const MCP_CLIENT_CONTEXT_TYPE = 'mcp-client';

export const ON_SAMPLING_METADATA = 'conduit-mcp:client:sampling';
export const ON_ELICITATION_METADATA = 'conduit-mcp:client:elicitation';
export const ON_ROOTS_METADATA = 'conduit-mcp:client:roots';
export const ON_NOTIFICATION_METADATA = 'conduit-mcp:client:notification';
export const ON_LOG_METADATA = 'conduit-mcp:client:log';

/** Where the client handlers' parameters are described for Nest's pipes (`params` at 0, `ctx` at 1 by default). */
export const MCP_CLIENT_PARAMS_METADATA = 'conduit-mcp:client:params';

/** The two arguments of every client handler, as Nest's parameter step knows them. */
export enum McpClientParamType {
  PARAMS = 0,
  CONTEXT = 1,
}

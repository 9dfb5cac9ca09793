/** The ExecutionContext type of client handlers: `context.getType() === 'mcp-client'`. */
export const MCP_CLIENT_CONTEXT_TYPE = 'mcp-client';

export const ON_SAMPLING_METADATA = 'conduit-mcp:client:sampling';
export const ON_ELICITATION_METADATA = 'conduit-mcp:client:elicitation';
export const ON_ROOTS_METADATA = 'conduit-mcp:client:roots';
export const ON_NOTIFICATION_METADATA = 'conduit-mcp:client:notification';
export const ON_LOG_METADATA = 'conduit-mcp:client:log';

export { McpModule } from './mcp.module';
export { McpServer } from './mcp.server';
export { InjectMcpServer, getMcpServerToken } from './mcp-server.token';
export {
  DEFAULT_BODY_LIMIT,
  DEFAULT_HTTP_PATH,
  DEFAULT_INPUT_TIMEOUT_MS,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_PAGE_SIZE,
  MAX_COMPLETION_VALUES,
  MAX_URI_LENGTH,
  MCP_COMPLETION_METADATA,
  MCP_CONTEXT_TYPE,
  MCP_PARAMS_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_TOOL_METADATA,
  McpParamType,
} from './mcp.constants';
export type { McpContextType } from './mcp.constants';
export type {
  McpCacheHint,
  McpHttpOptions,
  McpModuleOptions,
  McpRequestStateOptions,
} from './interfaces/mcp-module-options.interface';
export { McpTool } from './decorators/mcp-tool.decorator';
export type { McpToolOptions } from './decorators/mcp-tool.decorator';
export { McpResource } from './decorators/mcp-resource.decorator';
export type { McpResourceOptions } from './decorators/mcp-resource.decorator';
export { McpPrompt } from './decorators/mcp-prompt.decorator';
export type { McpPromptOptions } from './decorators/mcp-prompt.decorator';
export { McpCompletion } from './decorators/mcp-completion.decorator';
export type { McpCompletionOptions } from './decorators/mcp-completion.decorator';
export { McpArgs, McpCtx } from './decorators/mcp-params.decorator';
export { McpRequestContext } from './context/mcp-request-context';
export { McpRequestState } from './context/mcp-request-state';
export type { McpRequestContextInit } from './context/mcp-request-context';
export { McpExecutionContext } from './context/mcp-execution-context';
export type { McpInput } from './context/mcp-input.interface';
export { McpToolError } from './errors/mcp-tool.error';
export { McpAbortedError } from './errors/mcp-aborted.error';
export { McpHealthIndicator } from './health/mcp.health';
export { MCP_CHANNELS, McpTelemetry } from './telemetry/mcp.telemetry';
export type { McpCancelledEvent, McpHandlerEvent, McpOutcome, McpRequestEvent } from './telemetry/mcp.telemetry';
export { McpDeclarationError, McpRegistry } from './registry/mcp.registry';
export type { CompletionRef } from './registry/mcp.registry';
export { McpSession } from './session/mcp-session';
export { InMemorySessionStore } from './session/session.store';
export type { SessionStore } from './session/session.store';
export type { MessageSink } from './session/message-sink.interface';
export type { DispatchOrigin } from './dispatch/dispatch-origin.interface';
export type { TransportFacts, TransportHeaders, TransportKind } from './dispatch/transport-facts.interface';
export type { McpEndpoint } from './dispatch/mcp-endpoint.interface';
export { McpStdio } from './transports/stdio/mcp-stdio';
export type { McpStdioOptions } from './transports/stdio/mcp-stdio';

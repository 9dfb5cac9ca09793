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
  DEFAULT_SHUTDOWN_GRACE_MS,
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
export { DEFAULT_ARGUMENT_LIMITS } from './arguments/argument-bounds';
export type {
  McpArgumentLimits,
  McpCacheHint,
  McpCorsOptions,
  McpHttpConnectionOptions,
  McpHttpOptions,
  McpModuleOptions,
  McpRequestStateOptions,
} from './interfaces/mcp-module-options.interface';
export { McpAuthenticator } from './auth/mcp-authenticator.interface';
export type { McpAuthResult } from './auth/mcp-authenticator.interface';
export type {
  McpAuthOptions,
  McpCustomTokenVerification,
  McpIntrospectionTokenVerification,
  McpJwtTokenVerification,
  McpTokenVerifier,
} from './auth/mcp-auth-options.interface';
export type { McpAuthInfo } from './auth/mcp-auth-info.interface';
export { McpTool } from './decorators/mcp-tool.decorator';
export type { McpToolOptions, McpToolTaskSupport } from './decorators/mcp-tool.decorator';
export type { McpTaskLimits } from './tasks/mcp-task.runner';
export { McpResource } from './decorators/mcp-resource.decorator';
export type { McpResourceOptions } from './decorators/mcp-resource.decorator';
export { McpPrompt } from './decorators/mcp-prompt.decorator';
export type { McpPromptOptions } from './decorators/mcp-prompt.decorator';
export { McpCompletion } from './decorators/mcp-completion.decorator';
export type { McpCompletionOptions } from './decorators/mcp-completion.decorator';
export { McpArgs, McpCtx } from './decorators/mcp-params.decorator';
export { McpScopes } from './decorators/mcp-scopes.decorator';
export { McpScopesGuard } from './auth/mcp-scopes.guard';
export { McpRequestContext } from './context/mcp-request-context';
export { McpRequestState } from './context/mcp-request-state';
export type { McpRequestContextInit } from './context/mcp-request-context';
export { McpExecutionContext } from './context/mcp-execution-context';
export type { McpInput } from './context/mcp-input.interface';
export { McpToolError } from './errors/mcp-tool.error';
export { McpAbortedError } from './errors/mcp-aborted.error';
export { McpHealthIndicator } from './health/mcp.health';
export type { McpStateHealth } from './health/state-health.interface';
export { MCP_CHANNELS } from './telemetry/mcp.channels';
export type {
  McpCancelledEvent,
  McpHandlerEvent,
  McpHandlerKind,
  McpHandlerTrace,
  McpOutcome,
  McpRequestEvent,
  McpRequestTarget,
  McpRequestTrace,
  McpSessionEvent,
  McpStreamEvent,
  McpTaskEvent,
} from './telemetry/mcp.channels';
export { McpTelemetry } from './telemetry/mcp.telemetry';
export { McpTelemetryInterceptor } from './telemetry/mcp-telemetry.interceptor';
export { McpDeclarationError } from './registry/mcp.registry';
export type { McpCatalog, McpCatalogEntry } from './registry/registry.types';
export type { CompletionRef } from './registry/mcp.registry';
export { InMemorySessionStore } from './session/in-memory-session.store';
export type { InMemorySessionStoreOptions } from './session/in-memory-session.store';
export { SessionStore } from './session/session.store';
export type { SessionCreation } from './session/session.store';
export type { SessionRecord, SessionRecordChanges } from './session/session-record';
export type { TransportFacts, TransportHeaders, TransportKind } from './dispatch/transport-facts.interface';
export { McpStdio } from './transports/stdio/mcp-stdio';
export type { McpStdioOptions } from './transports/stdio/mcp-stdio';
export { McpEventBus } from './events/mcp-event.bus';
export type { McpBusEvent, McpBusListener } from './events/mcp-event.bus';
export { InMemoryEventBus } from './events/in-memory-event.bus';
export { TaskStore, TERMINAL_TASK_STATUSES } from './tasks/task.store';
export type { McpTaskStatus, TaskChanges, TaskPage, TaskRecord } from './tasks/task.store';
export { InMemoryTaskStore } from './tasks/in-memory-task.store';
export { McpTaskQueue } from './tasks/task.queue';
export type { McpTaskJob, McpTaskJobAuth } from './tasks/task.queue';
export { McpTaskExecutor } from './tasks/mcp-task.executor';
export type { InMemoryTaskStoreOptions } from './tasks/in-memory-task.store';
export { EventStore, InMemoryEventStore } from './transports/http/event.store';
export type { EventReplay, InMemoryEventStoreOptions, StoredEvent } from './transports/http/event.store';

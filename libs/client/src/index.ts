export { McpClientModule } from './mcp-client.module';
export { McpClients } from './mcp-clients';
export { InjectMcpClient, getMcpClientToken } from './mcp-client.token';
export {
  MCP_CLIENT_CONTEXT_TYPE,
  ON_ELICITATION_METADATA,
  ON_LOG_METADATA,
  ON_NOTIFICATION_METADATA,
  ON_ROOTS_METADATA,
  ON_SAMPLING_METADATA,
} from './mcp-client.constants';
export type {
  McpClientModuleOptions,
  McpHttpServerConfig,
  McpRateLimit,
  McpServerConfig,
  McpServerTransportConfig,
} from './interfaces/mcp-client-options.interface';
export { OnElicitation, OnLog, OnNotification, OnRoots, OnSampling } from './handlers/client-handler.decorators';
export type { McpHandlerScope } from './handlers/client-handler.decorators';
export { McpClient } from './connection/mcp-client';
export type { McpClientState, McpListParams, McpListenHandle } from './connection/mcp-client.types';
export { DEFAULT_LIST_LIMITS } from './connection/list-limits';
export type { ListLimits } from './connection/list-limits';
export type { McpCallOptions } from './connection/mcp-call-options';
export type { McpAwaitTaskOptions, McpTaskCallOptions, McpTaskInfo, McpTaskStart } from './connection/mcp-task.types';
export { PendingCall } from './connection/pending-call';
export type { McpProgress } from './connection/pending-call';
export { McpInputRefusal } from './connection/input-responder.interface';
export type {
  McpClientNotificationContext,
  McpInputContext,
  McpInputMethod,
  McpInputResponder,
  McpInputSituation,
  McpServerMessageContext,
} from './connection/input-responder.interface';
export { McpClientExecutionContext } from './handlers/mcp-client-execution-context';
export { InputBudgetGuard } from './safety/input-budget.guard';
export {
  DEFAULT_INPUT_RATE_LIMIT,
  McpInputBudgetStorage,
  MemoryInputBudgetStorage,
} from './safety/input-budget.storage';
export { SamplingRequestGuard } from './safety/sampling-request.guard';
export { SamplingParamsPipe } from './safety/sampling-params.pipe';
export { SamplingResultInterceptor } from './safety/sampling-result.interceptor';
export { ElicitationRequestGuard } from './safety/elicitation-request.guard';
export { ElicitationContextInterceptor } from './safety/elicitation-context.interceptor';
export { ElicitationAnswerInterceptor } from './safety/elicitation-answer.interceptor';
export { LocalRootsInterceptor } from './safety/local-roots.interceptor';
export { BUILT_IN_CHECKS } from './safety/client-checks';
export type { McpClientCheckChoice, McpClientCheckName } from './safety/client-check.types';
export { DEFAULT_SAMPLING_OPTIONS } from './safety/sampling.check';
export type { SamplingOptions } from './safety/sampling.check';
export type { ElicitationMode } from './safety/elicitation.check';
export type { CheckError } from './safety/checked';
export { McpClientError } from './errors/mcp-client.error';
export type { McpClientErrorKind } from './errors/mcp-client.error';
export { McpTaskCancelledError, McpTaskFailedError } from './errors/mcp-task.error';
export { McpClientHealthIndicator } from './health/mcp-client.health';
export type { ClientSendOptions, ClientTransport, PausableDeadline } from './transports/client-transport.interface';
export { createClientTransport } from './transports/client-transport.factory';
export {
  MessageTooLargeError,
  ServerExitedError,
  ServerUnreachableError,
  SessionExpiredError,
} from './transports/client-transport.errors';
export type {
  HttpSendOptions,
  HttpServerConfig,
  McpHttpAuthProvider,
  McpHttpRefusal,
} from './transports/http-client.session';
export type { McpEnterpriseIdentity, McpOAuthOptions } from './auth/mcp-oauth.options';
export type { McpHttpAuth } from './auth/http-auth.resolver';
export type { OAuthNetworkOptions } from './auth/guarded.fetch';
export { MemoryTokenStore } from './auth/mcp-token.store';
export type { McpRegisteredClient, McpStoredTokens, McpTokenKey, McpTokenStore } from './auth/mcp-token.store';
export { McpAuthorizationError } from './errors/mcp-authorization.error';
export { McpLoopbackRedirect } from './auth/loopback-redirect.listener';
export { StdioClientTransport } from './transports/stdio-client.transport';
export type { StdioClientConfig, StdioClientOptions } from './transports/stdio-client.transport';
export { StreamableHttpClientTransport } from './transports/streamable-http-client.transport';
export type {
  StreamableHttpClientConfig,
  StreamableHttpClientOptions,
} from './transports/streamable-http-client.transport';
export { DEFAULT_RECONNECT } from './transports/reconnect.backoff';
export type { ReconnectOptions } from './transports/reconnect.backoff';
export { SseClientTransport } from './transports/sse-client.transport';
export type { SseClientConfig, SseClientOptions } from './transports/sse-client.transport';
export { isSyntheticResponse } from './transports/synthetic-response';
export { INHERITED_ENV_VARS, inheritedEnvironment } from './transports/inherited-environment';
export { StderrLogger } from './logging/stderr.logger';
export { MCP_CLIENT_CHANNELS } from './telemetry/mcp-client.channels';
export type {
  McpClientInputEvent,
  McpClientInputTrace,
  McpClientRequestEvent,
  McpClientRequestTrace,
} from './telemetry/mcp-client.channels';

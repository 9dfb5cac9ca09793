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
  McpRateLimit,
  McpServerConfig,
  McpServerTransportConfig,
} from './interfaces/mcp-client-options.interface';
export { OnElicitation, OnLog, OnNotification, OnRoots, OnSampling } from './decorators/client-handler.decorators';
export type { McpHandlerScope } from './decorators/client-handler.decorators';
export { McpClient } from './connection/mcp-client';
export type { McpClientState, McpListenHandle } from './connection/mcp-client';
export type { McpCallOptions } from './connection/mcp-call-options';
export { PendingCall } from './connection/pending-call';
export type { McpProgress } from './connection/pending-call';
export { McpInputRefusal } from './connection/input-responder.interface';
export type { McpInputContext, McpInputMethod, McpInputResponder } from './connection/input-responder.interface';
export { McpClientError } from './errors/mcp-client.error';
export type { McpClientErrorKind } from './errors/mcp-client.error';
export { McpClientHealthIndicator } from './health/mcp-client.health';
export type { ClientSendOptions, ClientTransport } from './transports/client-transport.interface';
export { createClientTransport } from './transports/client-transport.factory';
export {
  MessageTooLargeError,
  ServerExitedError,
  ServerUnreachableError,
  SessionExpiredError,
} from './transports/client-transport.errors';
export type { HttpSendOptions, HttpServerConfig, McpHttpAuthProvider } from './transports/http-client.session';
export { StdioClientTransport } from './transports/stdio-client.transport';
export type { StdioClientConfig, StdioClientOptions } from './transports/stdio-client.transport';
export { StreamableHttpClientTransport } from './transports/streamable-http-client.transport';
export type {
  StreamableHttpClientConfig,
  StreamableHttpClientOptions,
} from './transports/streamable-http-client.transport';
export { SseClientTransport } from './transports/sse-client.transport';
export type { SseClientConfig, SseClientOptions } from './transports/sse-client.transport';
export { isSyntheticResponse } from './transports/synthetic-response';
export { INHERITED_ENV_VARS, inheritedEnvironment } from './transports/inherited-environment';
export { StderrLogger } from './logging/stderr.logger';
export { MCP_CLIENT_CHANNELS } from './telemetry/mcp-client.channels';
export type { McpClientInputEvent, McpClientRequestEvent } from './telemetry/mcp-client.channels';

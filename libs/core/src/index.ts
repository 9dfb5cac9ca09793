export { isJsonObject } from './json/json-object';
export { JSONRPC_VERSION } from './jsonrpc/jsonrpc.types';
export type {
  JsonRpcErrorObject,
  JsonRpcFailure,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccess,
} from './jsonrpc/jsonrpc.types';
export {
  ErrorCode,
  McpError,
  errorResponse,
  httpHintOf,
  internalError,
  invalidParams,
  invalidRequest,
  methodNotFound,
  parseError,
  resourceNotFound,
  serverError,
} from './jsonrpc/jsonrpc.errors';
export type { McpErrorHttpHint, McpErrorOptions } from './jsonrpc/jsonrpc.errors';
export { classifyMessage, isJsonRpcId, parseJson } from './jsonrpc/jsonrpc.classifier';
export type { ClassifiedMessage, ParsedJson } from './jsonrpc/jsonrpc.classifier';
export {
  DEFAULT_MAX_BATCH_LENGTH,
  LAST_BATCH_REVISION,
  checkBatchRevision,
  checkBatchShape,
  revisionAllowsBatches,
} from './jsonrpc/jsonrpc.batch';
export type { BatchVerdict } from './jsonrpc/jsonrpc.batch';
export {
  DEFAULT_HTTP_REVISION,
  LATEST_LEGACY_REVISION,
  LATEST_MODERN_REVISION,
  LEGACY_REVISIONS,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
  MODERN_REVISIONS,
  eraOf,
  isKnownRevision,
  isLegacyRevision,
  isModernRevision,
  negotiateLegacyRevision,
} from './protocol/revisions';
export type { Era, LegacyRevision, ModernRevision, Revision } from './protocol/revisions';
export { LOGGING_LEVELS } from './protocol/protocol.types';
export type {
  Annotations,
  BlobResourceContents,
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  ContentBlock,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  Icon,
  Implementation,
  InitializeResult,
  JsonSchemaObject,
  ListRootsResult,
  LoggingLevel,
  Meta,
  Prompt,
  PromptArgument,
  PromptMessage,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  Root,
  SamplingMessage,
  ServerCapabilities,
  TextResourceContents,
  Tool,
  ToolAnnotations,
  ToolExecution,
} from './protocol/protocol.types';
export { META_RELATED_TASK, TASKS_EXTENSION_ID } from './protocol/tasks.types';
export type {
  DetailedTask,
  GetTaskResult,
  LegacyCreateTaskResult,
  LegacyTask,
  ModernCreateTaskResult,
  ModernTask,
  TaskInputRequests,
  TaskMetadata,
  TaskStatus,
} from './protocol/tasks.types';
export { SchemaValidator } from './schema/schema.validator';
export type { CompiledSchema, ValidationResult } from './schema/schema.validator';
export { checkElicitationSchema } from './schema/elicitation-schema.check';
export { checkCreateMessageResult, checkElicitResult, checkListRootsResult } from './schema/input-answer.check';
export type { AnswerCheck } from './schema/input-answer.check';
export { sanitizeText, sanitizeUtf8 } from './text/text.sanitizer';
export { TokenBucket } from './limits/token-bucket';
export type { TokenBucketOptions } from './limits/token-bucket';
export { BoundedQueue } from './limits/bounded-queue';
export { jsonSizeUpTo } from './limits/json-size';
export type { Transport } from './transport/transport.interface';
export { LineFramer, serializeLine } from './transport/stdio-line.framer';
export type { FramedLine, LineFramerOptions } from './transport/stdio-line.framer';
export { StdioTransport } from './transport/stdio.transport';
export type { StdioTransportOptions } from './transport/stdio.transport';
export { coalesceWrites } from './transport/write-coalescing';
export { encodeSseComment, encodeSseEvent } from './transport/sse.encoder';
export type { SseEvent, SseOutgoingEvent } from './transport/sse.encoder';
export { SseParser } from './transport/sse.parser';
export type { SseParserOptions } from './transport/sse.parser';
export { createInMemoryTransportPair } from './transport/in-memory.transport';
export { UriTemplate, UriTemplateError } from './uri-template/uri-template';
export type { UriTemplateMatch, UriTemplateVariables } from './uri-template/uri-template';
export {
  decodeHeaderValue,
  encodeHeaderValue,
  headerDeclarationProblems,
  headerParamsOf,
  valueAtPath,
} from './protocol/param-headers';
export type { HeaderParam } from './protocol/param-headers';
export { SPEC_TOOL_NAME_RULE, isSpecToolName } from './protocol/tool-name';
export { isConstant, markConstant, serializeMessage } from './jsonrpc/jsonrpc.serializer';
export { healthIndicatorResult } from './health/health-indicator.result';
export type { HealthStatus, McpHealthIndicatorResult } from './health/health-indicator.result';
export { MRTR_METHODS, decideEra, namesModernRevision } from './protocol/era.decision';
export { readTraceContext } from './protocol/trace-context';
export { publishTraceEnd, tracingObserved } from './diagnostics/tracing-channel';
export type { TraceContextMeta } from './protocol/trace-context';
export { loadOptionalPackage } from './packages/optional-package';
export type { OptionalPackageOptions } from './packages/optional-package';
export { LOOPBACK_HOSTNAMES } from './transport/loopback-hostnames';
export { MAX_AUTHORIZATION_LENGTH, parseBearerCredentials } from './auth/bearer-credentials.parse';
export type { BearerCredentials } from './auth/bearer-credentials.parse';
export { formatBearerChallenge } from './auth/bearer-challenge.format';
export type { BearerChallenge, BearerChallengeError } from './auth/bearer-challenge.format';
export { parseBearerChallenge } from './auth/bearer-challenge.parse';
export { authorizationServerMetadataUrls } from './auth/authorization-server.metadata';
export { expandScopes, isScopeToken, missingScopes, scopesOfClaim } from './auth/scope.check';
export type { ImpliedScopes } from './auth/scope.check';
export {
  PROTECTED_RESOURCE_WELL_KNOWN,
  protectedResourceMetadataUrls,
  resourceUriProblems,
} from './auth/protected-resource.metadata';
export type { ProtectedResourceMetadata } from './auth/protected-resource.metadata';
export { readBoundedResponse } from './transport/bounded-response.reader';

/*
 * The names and values of the OpenTelemetry semantic conventions for MCP (gen-ai/mcp.md, status: development) that
 * both the Prometheus metrics and the OpenTelemetry spans use: one place, so that a label and an attribute of the
 * same fact never drift apart.
 */

/** Span and metric attribute keys. Prometheus labels are these with dots replaced by underscores. */
export const MCP_ATTRIBUTES = {
  methodName: 'mcp.method.name',
  sessionId: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  errorType: 'error.type',
  responseStatusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  networkProtocolName: 'network.protocol.name',
} as const;

/** Where a value of unbounded origin (a client's method or tool name) is replaced: the conventions' `_OTHER`. */
export const OTHER = '_OTHER';

/**
 * `network.transport` of a transport kind: `pipe` for stdio, `tcp` for HTTP (Streamable HTTP, HTTP+SSE); any other
 * kind (the in-memory test transport) as it is.
 */
export function networkTransportOf(transport: string): string {
  if (transport === 'stdio') return 'pipe';
  if (transport === 'streamable-http' || transport === 'sse' || transport === 'http') return 'tcp';
  return transport;
}

/** `network.protocol.name`: `http` for the HTTP transports, none otherwise. */
export function networkProtocolOf(transport: string): string | undefined {
  return networkTransportOf(transport) === 'tcp' ? 'http' : undefined;
}

/**
 * `error.type` of an operation: the JSON-RPC error code as a string when it failed with one, `tool_error` for a tool
 * result with `isError`, `cancelled` when it was cancelled, `_OTHER` for a failure without a code, undefined when it
 * succeeded.
 */
export function errorTypeOf(outcome: { status?: string; errorCode?: number; toolError?: boolean }): string | undefined {
  if (outcome.status === 'cancelled') return 'cancelled';
  if (outcome.status === 'error') return outcome.errorCode !== undefined ? String(outcome.errorCode) : OTHER;
  if (outcome.toolError) return 'tool_error';
  return undefined;
}

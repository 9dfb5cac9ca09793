import { JsonRpcErrorObject, JsonRpcFailure, JsonRpcId } from './jsonrpc.types';

/** Standard JSON-RPC and MCP error codes. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Server-defined: a generic refusal (busy, forbidden, session problems). */
  ServerError: -32000,
  /** Streamable HTTP: the `Mcp-Session-Id` names no live session (sent with 404). */
  SessionNotFound: -32001,
  /** MCP legacy era: resource not found. */
  ResourceNotFound: -32002,
  /** MCP: the client declined or cancelled an URL elicitation that was required. */
  UrlElicitationRequired: -32042,
  /** MCP 2026-07-28: HTTP headers missing, malformed, or not matching the body (sent with 400). */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability the request did not declare (sent with 400). */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the request's protocol version is not served here (sent with 400). */
  UnsupportedProtocolVersion: -32022,
} as const;

/**
 * How an HTTP transport should answer a request whose response is this error: a status and extra headers (say a 403
 * with `WWW-Authenticate: Bearer error="insufficient_scope"`). Never put on the wire as part of the JSON-RPC error.
 */
export interface McpErrorHttpHint {
  /** An HTTP error status (400–599); anything else is ignored. */
  status?: number;
  headers?: Record<string, string>;
}

/** Options of {@link McpError}. */
export interface McpErrorOptions {
  /** A hint for HTTP transports, honoured for a single-message Streamable HTTP POST answered with this error. */
  http?: McpErrorHttpHint;
}

/** An error with a JSON-RPC code, safe to put on the wire: its message is meant for the peer. */
export class McpError extends Error {
  /** How an HTTP transport should answer with this error (see {@link McpErrorHttpHint}); not serialized. */
  http?: McpErrorHttpHint;

  /**
   * @example
   * throw new McpError(ErrorCode.ServerError, 'Insufficient scope', undefined, {
   *   http: { status: 403, headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="notes:write"' } },
   * });
   */
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    options?: McpErrorOptions,
  ) {
    super(message);
    this.name = 'McpError';
    this.http = options?.http;
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export const parseError = (detail = 'Parse error') => new McpError(ErrorCode.ParseError, detail);
export const invalidRequest = (detail = 'Invalid Request') => new McpError(ErrorCode.InvalidRequest, detail);
export const methodNotFound = (method: string) =>
  new McpError(ErrorCode.MethodNotFound, 'Method not found', { method });
export const invalidParams = (detail: string, data?: unknown) => new McpError(ErrorCode.InvalidParams, detail, data);
export const internalError = () => new McpError(ErrorCode.InternalError, 'Internal error');
export const serverError = (detail: string, data?: unknown) => new McpError(ErrorCode.ServerError, detail, data);
export const resourceNotFound = (uri: string) =>
  new McpError(ErrorCode.ResourceNotFound, 'Resource not found', { uri });

/**
 * Builds the error response for a request id; without one (null: unreadable) the response carries no `id`. The HTTP
 * hint of an McpError stays beside the response (see {@link httpHintOf}), never in it.
 */
export function errorResponse(id: JsonRpcId | null | undefined, error: McpError | JsonRpcErrorObject): JsonRpcFailure {
  const body = error instanceof McpError ? error.toJSON() : error;
  const response: JsonRpcFailure =
    id === null || id === undefined ? { jsonrpc: '2.0', error: body } : { jsonrpc: '2.0', id, error: body };
  if (error instanceof McpError && error.http !== undefined) httpHints.set(response, error.http);
  return response;
}

/** The HTTP hint of the McpError an error response was built from by {@link errorResponse}, if it had one. */
export function httpHintOf(response: object): McpErrorHttpHint | undefined {
  return httpHints.get(response);
}

// A side channel from an error response to its McpError's HTTP hint: nothing on the wire, nothing when unused.
const httpHints = new WeakMap<object, McpErrorHttpHint>();

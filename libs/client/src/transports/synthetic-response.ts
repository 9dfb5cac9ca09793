import { ErrorCode, JsonRpcFailure, JsonRpcId } from '@conduit-mcp/core';

const synthetic = new WeakSet<object>();

/**
 * An error response made up by the transport for a request the server will never answer (an HTTP error without a
 * JSON-RPC body, a body too large, a stream lost for good), so the caller's request settles instead of hanging.
 * Code -32000; `data.status` is the HTTP status when there was one.
 */
export function transportFailure(id: JsonRpcId, message: string, status?: number): JsonRpcFailure {
  const response: JsonRpcFailure = {
    jsonrpc: '2.0',
    id,
    error:
      status === undefined
        ? { code: ErrorCode.ServerError, message }
        : { code: ErrorCode.ServerError, message, data: { status } },
  };
  synthetic.add(response);
  return response;
}

/**
 * True for an error response a client transport made up for a request the server will never answer (an HTTP error
 * without a JSON-RPC body, a body too large, a stream lost for good), never for one a server sent.
 */
export function isSyntheticResponse(message: unknown): boolean {
  return typeof message === 'object' && message !== null && synthetic.has(message);
}

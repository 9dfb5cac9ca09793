import type { ServerResponse } from 'node:http';
import { ErrorCode, JsonRpcId, JsonRpcResponse, errorResponse } from '@conduit-mcp/core';
import { sendError } from './http-response.util';

/** The `Retry-After` (seconds) of a 503 answering a session or event store that failed: such outages are short. */
export const STORE_RETRY_AFTER_SECONDS = 2;

const MESSAGE = 'Service Unavailable: session state cannot be reached right now; retry later';

/** The JSON-RPC error for a request a failed store kept from being served (-32000, as every other refusal). */
export function storeUnavailableResponse(id: JsonRpcId | null): JsonRpcResponse {
  return errorResponse(id, { code: ErrorCode.ServerError, message: MESSAGE });
}

/** Answers 503 with `Retry-After` and a -32000 error: a shared store failed or did not answer in time. */
export function sendStoreUnavailable(res: ServerResponse, id: JsonRpcId | null = null): void {
  sendError(res, 503, MESSAGE, {
    code: ErrorCode.ServerError,
    id,
    headers: { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
  });
}

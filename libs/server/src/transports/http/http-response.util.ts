import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { ErrorCode, JsonRpcId, errorResponse, internalError, serializeMessage } from '@conduit-mcp/core';

/** Writes a JSON body. Never throws; a response already started or closed is only ended. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent || res.destroyed) return endQuietly(res);
  let text: string;
  try {
    text = serializeMessage(body);
  } catch {
    status = 500;
    text = JSON.stringify(errorResponse(null, internalError()));
  }
  try {
    // Object.assign, not `{ ...x, key }`: on Node 20 a spread followed by keys takes V8's slow path (bench/README.md).
    res.writeHead(
      status,
      Object.assign({}, headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }),
    );
    res.end(text);
  } catch {
    res.destroy();
  }
}

/** Writes a JSON-RPC error response with an HTTP error status; it carries the request's id when that is known. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  options: { code?: number; id?: JsonRpcId | null; headers?: OutgoingHttpHeaders } = {},
): void {
  const { code = ErrorCode.ServerError, id = null, headers } = options;
  sendJson(res, status, errorResponse(id, { code, message }), headers);
}

/** Writes a status with no body (202 Accepted, 204 No Content). */
export function sendEmpty(res: ServerResponse, status: number, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent || res.destroyed) return endQuietly(res);
  try {
    res.writeHead(status, headers);
    res.end();
  } catch {
    res.destroy();
  }
}

function endQuietly(res: ServerResponse): void {
  try {
    if (!res.writableEnded) res.end();
  } catch {
    res.destroy();
  }
}

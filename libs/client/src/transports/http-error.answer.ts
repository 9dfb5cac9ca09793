import { JsonRpcErrorObject, JsonRpcFailure, JsonRpcId, sanitizeText, isJsonObject } from '@conduit-mcp/core';
import { mediaTypeOf, readBoundedBody } from './http-body.reader';
import { transportFailure } from './synthetic-response';

/** What an HTTP error status said: the JSON-RPC response in its body, if any, and a one-line description. */
export interface HttpErrorReport {
  status: number;
  /** The body's JSON-RPC `id` and `error`, when it is a JSON-RPC error response. */
  id?: unknown;
  error?: JsonRpcErrorObject;
  /** `HTTP 404 Not Found: Session not found` (server text sanitized and clamped). */
  message: string;
}

/** Reads an HTTP error response (its body bounded by `maxBytes`; anything unreadable is ignored). */
export async function readHttpError(response: Response, maxBytes: number): Promise<HttpErrorReport> {
  let body: unknown;
  if (mediaTypeOf(response) === 'application/json') {
    try {
      body = JSON.parse((await readBoundedBody(response, maxBytes)).toString('utf8'));
    } catch {
      body = undefined;
    }
  } else {
    void response.body?.cancel().catch(() => undefined);
  }
  const error = isJsonObject(body) ? errorObjectOf(body.error) : undefined;
  const head = `HTTP ${response.status}${response.statusText ? ` ${sanitizeText(response.statusText, 80)}` : ''}`;
  return {
    status: response.status,
    ...(error && { id: (body as Record<string, unknown>).id, error }),
    message: error ? `${head}: ${sanitizeText(error.message, 200)}` : head,
  };
}

/**
 * The response a request refused with an HTTP error gets: the server's JSON-RPC error when it names the request's
 * id, else a synthetic -32000 error carrying the status.
 */
export function answerHttpError(report: HttpErrorReport, requestId: JsonRpcId): JsonRpcFailure {
  if (report.error && report.id === requestId) return { jsonrpc: '2.0', id: requestId, error: report.error };
  return transportFailure(requestId, report.message, report.status);
}

function errorObjectOf(value: unknown): JsonRpcErrorObject | undefined {
  if (!isJsonObject(value) || !Number.isInteger(value.code) || typeof value.message !== 'string') return undefined;
  const error: JsonRpcErrorObject = { code: value.code as number, message: value.message };
  if (value.data !== undefined) error.data = value.data;
  return error;
}

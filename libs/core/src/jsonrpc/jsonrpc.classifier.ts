import { isJsonObject } from '../json/json-object';
import { invalidRequest, McpError, parseError } from './jsonrpc.errors';
import {
  JSONRPC_VERSION,
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from './jsonrpc.types';

/** What an incoming value turned out to be; `invalid` carries the error to answer with. */
export type ClassifiedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: JsonRpcId | null; error: McpError };

/** Result of {@link parseJson}. */
export type ParsedJson = { ok: true; value: unknown } | { ok: false; error: McpError };

/**
 * A valid MCP request id: a string or a safe integer. MCP narrows JSON-RPC's numbers to integers, and an integer past
 * 2^53 would not survive a round trip through a JavaScript peer, so answers could reach the wrong request.
 */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/** Parses JSON text; a syntax error becomes a `-32700` parse error (the text is not echoed back). */
export function parseJson(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: parseError() };
  }
}

/**
 * Classifies a parsed JSON value as a JSON-RPC request, notification or response.
 * Never throws: throwing getters, hostile proxies and any other oddity classify as `invalid`.
 * The returned message is a fresh object built from fields read once, so later reads cannot differ.
 */
export function classifyMessage(value: unknown): ClassifiedMessage {
  try {
    return classify(value);
  } catch {
    return invalid(safeId(value), 'Malformed message');
  }
}

function classify(value: unknown): ClassifiedMessage {
  if (Array.isArray(value)) return invalid(null, 'Batches are not supported');
  if (!isJsonObject(value)) return invalid(null, 'Message must be an object');

  const id = Object.hasOwn(value, 'id') ? value.id : undefined;
  const validId = isJsonRpcId(id) ? id : null;
  if (value.jsonrpc !== JSONRPC_VERSION) return invalid(validId, 'jsonrpc must be "2.0"');

  if (Object.hasOwn(value, 'method')) {
    const method = value.method;
    if (typeof method !== 'string' || method === '') return invalid(validId, 'method must be a non-empty string');
    const params = value.params;
    if (params !== undefined && !isJsonObject(params)) return invalid(validId, 'params must be an object');
    const withParams = params === undefined ? {} : { params };
    if (id === undefined) return { kind: 'notification', message: { jsonrpc: JSONRPC_VERSION, method, ...withParams } };
    if (validId === null) return invalid(null, 'id must be a string or a safe integer');
    return { kind: 'request', message: { jsonrpc: JSONRPC_VERSION, id: validId, method, ...withParams } };
  }

  const hasResult = Object.hasOwn(value, 'result');
  const hasError = Object.hasOwn(value, 'error');
  if (!hasResult && !hasError) return invalid(validId, 'Message has no method, result or error');
  if (hasResult && hasError) return invalid(validId, 'Response must have exactly one of result or error');

  if (hasResult) {
    const result = value.result;
    if (validId === null) return invalid(null, 'Response id must be a string or a safe integer');
    if (!isJsonObject(result)) return invalid(validId, 'result must be an object');
    return { kind: 'response', message: { jsonrpc: JSONRPC_VERSION, id: validId, result } };
  }

  // An error response may carry a null id: the peer could not read ours.
  if (id !== null && validId === null) return invalid(null, 'Response id must be a string, a safe integer or null');
  const error = readErrorObject(value.error);
  if (!error) return invalid(validId, 'error must have an integer code and a string message');
  return {
    kind: 'response',
    message: validId === null ? { jsonrpc: JSONRPC_VERSION, error } : { jsonrpc: JSONRPC_VERSION, id: validId, error },
  };
}

function readErrorObject(value: unknown): JsonRpcErrorObject | undefined {
  if (!isJsonObject(value)) return undefined;
  const { code, message } = value;
  if (!Number.isInteger(code) || typeof message !== 'string') return undefined;
  const data = value.data;
  return data === undefined ? { code: code as number, message } : { code: code as number, message, data };
}

function safeId(value: unknown): JsonRpcId | null {
  try {
    const id = isJsonObject(value) ? value.id : undefined;
    return isJsonRpcId(id) ? id : null;
  } catch {
    return null;
  }
}

function invalid(id: JsonRpcId | null, reason: string): ClassifiedMessage {
  return { kind: 'invalid', id, error: invalidRequest(reason) };
}

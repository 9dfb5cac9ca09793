import type { OutgoingHttpHeaders } from 'node:http';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { ErrorCode, JsonRpcResponse, McpErrorHttpHint } from '@conduit-mcp/core';

// Modern era: JSON-RPC errors answered with 400 Bad Request (-32601 is 404).
const MODERN_BAD_REQUEST_CODES = new Set<number>([
  ErrorCode.ParseError,
  ErrorCode.InvalidRequest,
  ErrorCode.InvalidParams,
  -32020, // header mismatch
  -32021, // missing client capability
  -32022, // unsupported protocol version
]);

// Headers the transport writes itself, which a hint never replaces.
const OWN_HEADERS = new Set(['content-type', 'content-length', 'mcp-session-id', 'connection', 'transfer-encoding']);

/** The HTTP status of a modern-era JSON reply carrying one response. */
export function modernStatus(response: JsonRpcResponse): number {
  if (!('error' in response)) return 200;
  if (response.error.code === ErrorCode.MethodNotFound) return 404;
  return MODERN_BAD_REQUEST_CODES.has(response.error.code) ? 400 : 200;
}

/** The status an McpError's HTTP hint asks for, when it is an error status (400–599); else `status`. */
export function hintedStatus(hint: McpErrorHttpHint, status: number): number {
  const wanted = hint.status;
  return Number.isInteger(wanted) && wanted! >= 400 && wanted! <= 599 ? wanted! : status;
}

/**
 * `headers` plus those of an McpError's HTTP hint that are valid, never replacing the transport's own (content type
 * and length, `Mcp-Session-Id`, connection handling).
 */
export function hintedHeaders(hint: McpErrorHttpHint, headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  if (typeof hint.headers !== 'object' || hint.headers === null) return headers;
  const merged: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(hint.headers)) {
    if (OWN_HEADERS.has(name.toLowerCase()) || typeof value !== 'string') continue;
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      continue;
    }
    merged[name] = value;
  }
  return Object.assign(merged, headers);
}

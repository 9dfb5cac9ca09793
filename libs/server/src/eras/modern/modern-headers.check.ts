import type { TransportHeaders } from '../../dispatch/transport-facts.interface';
import {
  ErrorCode,
  HeaderParam,
  JsonRpcRequest,
  McpError,
  decodeHeaderValue,
  sanitizeText,
  valueAtPath,
} from '@conduit-mcp/core';
/** Methods whose `Mcp-Name` header mirrors `params.name`, `params.uri` or `params.taskId`. */
const NAMED: Record<string, 'name' | 'uri' | 'taskId'> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // The tasks extension's methods, by the task they address.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * The Streamable HTTP request headers of a modern-era POST, checked against its body: `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers of the tool's `x-mcp-header` arguments. Missing, malformed
 * or mismatching → -32020 (HeaderMismatch).
 */
export function checkModernHeaders(
  request: JsonRpcRequest,
  revision: string,
  headers: TransportHeaders,
  headerParams: readonly HeaderParam[],
): void {
  expectHeader(headers, 'mcp-protocol-version', revision, 'MCP-Protocol-Version');
  expectHeader(headers, 'mcp-method', request.method, 'Mcp-Method');
  const params = request.params ?? {};
  const named = NAMED[request.method];
  if (named) expectHeader(headers, 'mcp-name', params[named], 'Mcp-Name', true);
  if (request.method !== 'tools/call') return;
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  for (const { header, path } of headerParams) {
    const value = valueAtPath(args, path);
    const name = `mcp-param-${header.toLowerCase()}`;
    if (value === undefined || value === null) {
      if (headers[name] !== undefined) throw mismatch(`Mcp-Param-${header} is present but the argument is not`);
      continue;
    }
    const given = single(headers, name, `Mcp-Param-${header}`);
    if (given === undefined) throw mismatch(`Mcp-Param-${header} header is missing`);
    if (!sameValue(decode(given, `Mcp-Param-${header}`), value))
      throw mismatch(`Mcp-Param-${header} does not match the argument`);
  }
}

function expectHeader(
  headers: TransportHeaders,
  name: string,
  expected: unknown,
  label: string,
  encoded = false,
): void {
  const given = single(headers, name, label);
  if (given === undefined) throw mismatch(`${label} header is missing`);
  const value = encoded ? decode(given, label) : given;
  if (value !== expected && !(encoded && typeof expected === 'string' && value === wellFormed(expected)))
    throw mismatch(`${label} header value "${sanitizeText(value, 64)}" does not match the body`);
}

function single(headers: TransportHeaders, name: string, label: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) throw mismatch(`${label} header is repeated`);
  return value;
}

function decode(value: string, label: string): string {
  const decoded = decodeHeaderValue(value);
  if (decoded === undefined) throw mismatch(`${label} header has a malformed base64 value`);
  return decoded;
}

function sameValue(header: string, value: unknown): boolean {
  if (typeof value === 'string') return header === value || header === wellFormed(value);
  if (typeof value === 'boolean') return header === String(value);
  if (typeof value === 'number') return header.trim() !== '' && Number(header) === value;
  return false;
}

/**
 * A header carries UTF-8, where a lone surrogate of the JSON body can only travel as U+FFFD: a client encoding the
 * body's string faithfully sends that, and it is the same value.
 */
function wellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}

function mismatch(message: string): McpError {
  return new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`);
}

import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCode, JsonRpcRequest, McpError, sanitizeText } from '@conduit-mcp/core';

// A value wrapped as `=?base64?…?=` is encoded; anything else, even if it starts alike, is literal.
const BASE64_SENTINEL = /^=\?base64\?(.*)\?=$/s;
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Methods whose `Mcp-Name` header mirrors `params.name` or `params.uri`. */
const NAMED: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** A tool argument mirrored into an `Mcp-Param-{header}` header (`x-mcp-header` in its input schema). */
export interface HeaderParam {
  header: string;
  path: string[];
}

/**
 * The Streamable HTTP request headers of a modern-era POST, checked against its body: `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers of the tool's `x-mcp-header` arguments. Missing, malformed
 * or mismatching → -32020 (HeaderMismatch).
 */
export function checkModernHeaders(
  request: JsonRpcRequest,
  revision: string,
  headers: IncomingHttpHeaders,
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
    const value = path.reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), args);
    const name = `mcp-param-${header.toLowerCase()}`;
    if (value === undefined || value === null) {
      if (headers[name] !== undefined) throw mismatch(`Mcp-Param-${header} is present but the argument is not`);
      continue;
    }
    const given = single(headers, name, `Mcp-Param-${header}`);
    if (given === undefined) throw mismatch(`Mcp-Param-${header} header is missing`);
    if (!sameValue(decode(given, `Mcp-Param-${header}`), value)) throw mismatch(`Mcp-Param-${header} does not match the argument`);
  }
}

/** The `x-mcp-header` arguments of a tool input schema, at any depth of `properties`. */
export function headerParamsOf(schema: Record<string, unknown>, path: string[] = []): HeaderParam[] {
  const properties = schema.properties;
  if (!properties || typeof properties !== 'object') return [];
  return Object.entries(properties as Record<string, Record<string, unknown>>).flatMap(([key, property]) => {
    if (!property || typeof property !== 'object') return [];
    const here = typeof property['x-mcp-header'] === 'string' ? [{ header: property['x-mcp-header'] as string, path: [...path, key] }] : [];
    return [...here, ...headerParamsOf(property, [...path, key])];
  });
}

function expectHeader(headers: IncomingHttpHeaders, name: string, expected: unknown, label: string, encoded = false): void {
  const given = single(headers, name, label);
  if (given === undefined) throw mismatch(`${label} header is missing`);
  const value = encoded ? decode(given, label) : given;
  if (value !== expected) throw mismatch(`${label} header value "${sanitizeText(value, 64)}" does not match the body`);
}

function single(headers: IncomingHttpHeaders, name: string, label: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) throw mismatch(`${label} header is repeated`);
  return value;
}

function decode(value: string, label: string): string {
  const match = BASE64_SENTINEL.exec(value);
  if (!match) return value;
  if (!STRICT_BASE64.test(match[1])) throw mismatch(`${label} header has a malformed base64 value`);
  return Buffer.from(match[1], 'base64').toString('utf8');
}

function sameValue(header: string, value: unknown): boolean {
  if (typeof value === 'string') return header === value;
  if (typeof value === 'boolean') return header === String(value);
  if (typeof value === 'number') return header.trim() !== '' && Number(header) === value;
  return false;
}

function mismatch(message: string): McpError {
  return new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`);
}

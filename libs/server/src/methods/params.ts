import { invalidParams, sanitizeText } from '@conduit-mcp/core';
import { McpParams } from '../dispatch/mcp-route.interface';

/** Reads a required string parameter or refuses the request with -32602. */
export function requireString(params: McpParams, key: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw invalidParams(`Missing or invalid "${key}": a string is required`);
  return value;
}

/** Reads an optional object parameter (absent → `{}`) or refuses the request with -32602. */
export function optionalObject(params: McpParams, key: string): Record<string, unknown> {
  const value = params[key];
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidParams(`Invalid "${key}": an object is required`);
  }
  return value as Record<string, unknown>;
}

/** A client-supplied string made safe to echo in an error message. */
export function echo(value: unknown): string {
  return sanitizeText(typeof value === 'string' ? value : JSON.stringify(value ?? null), 128);
}

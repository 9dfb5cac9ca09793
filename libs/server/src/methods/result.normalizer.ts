import {
  CallToolResult,
  CompleteResult,
  ContentBlock,
  GetPromptResult,
  PromptMessage,
  ReadResourceResult,
  ResourceContents,
  isJsonObject,
} from '@conduit-mcp/core';
import { MAX_COMPLETION_VALUES } from '../mcp.constants';

/**
 * What a tool may return: a full `CallToolResult`, a string (one text block), or a plain object (its
 * `structuredContent`, with a JSON text block beside it for older clients).
 */
export function toCallToolResult(value: unknown): CallToolResult {
  if (isObject(value) && Array.isArray(value.content)) return value as unknown as CallToolResult;
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (isObject(value)) return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

/**
 * What a resource handler may return: a full `ReadResourceResult`, an array of contents, one contents object, a
 * string (text), or bytes (a base64 blob). Contents without a `uri` get the requested one.
 */
export function toReadResourceResult(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  const fill = (contents: Record<string, unknown>): ResourceContents =>
    ({ uri, ...(mimeType ? { mimeType } : {}), ...contents }) as ResourceContents;
  if (isObject(value) && Array.isArray(value.contents)) {
    return { ...value, contents: (value.contents as Record<string, unknown>[]).map(fill) };
  }
  if (Array.isArray(value)) return { contents: value.map((item) => fill(item as Record<string, unknown>)) };
  if (typeof value === 'string') return { contents: [fill({ text: value })] };
  if (value instanceof Uint8Array) return { contents: [fill({ blob: Buffer.from(value).toString('base64') })] };
  if (isObject(value)) return { contents: [fill(value)] };
  return { contents: [fill({ text: JSON.stringify(value ?? null) })] };
}

/** What a prompt handler may return: a full `GetPromptResult`, an array of messages, or a string (one user message). */
export function toGetPromptResult(value: unknown, description: string | undefined): GetPromptResult {
  const described = (messages: PromptMessage[]): GetPromptResult =>
    description ? { description, messages } : { messages };
  if (isObject(value) && Array.isArray(value.messages)) return value as unknown as GetPromptResult;
  if (Array.isArray(value)) return described(value as PromptMessage[]);
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return described([{ role: 'user', content: { type: 'text', text } as ContentBlock }]);
}

/** What a completion handler may return: `string[]` or `{ values, total?, hasMore? }`; clamped to 100 values. */
export function toCompleteResult(value: unknown): CompleteResult {
  type Given = { values: unknown[]; total?: number; hasMore?: boolean };
  const given: Given = Array.isArray(value)
    ? { values: value }
    : isObject(value) && Array.isArray(value.values)
      ? (value as Given)
      : { values: [] };
  const values = given.values.filter((item): item is string => typeof item === 'string');
  const clamped = values.length > MAX_COMPLETION_VALUES;
  const completion: CompleteResult['completion'] = { values: values.slice(0, MAX_COMPLETION_VALUES) };
  const total = given.total ?? (clamped ? values.length : undefined);
  if (total !== undefined) completion.total = total;
  if (given.hasMore !== undefined || clamped) completion.hasMore = clamped || !!given.hasMore;
  return { completion };
}

/** A JSON object, not bytes (a resource handler may return a Buffer). */
function isObject(value: unknown): value is Record<string, unknown> {
  return isJsonObject(value) && !(value instanceof Uint8Array);
}

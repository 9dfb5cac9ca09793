import { LOGGING_LEVELS, LoggingLevel, sanitizeText, isJsonObject } from '@conduit-mcp/core';

/** A server log entry (`notifications/message` params) once sanitized. */
export interface SanitizedLogParams {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

/** Longest string kept in `data` (keys included), in code points; longer ones end with `…`. */
export const MAX_LOG_STRING = 4096;
/** Longest `logger` kept, in code points. */
export const MAX_LOGGER_NAME = 256;
/** Most arrays and objects nested in `data`; a deeper one is replaced by {@link CUT_MARKER}. */
export const MAX_LOG_DEPTH = 16;
export const CUT_MARKER = '[…]';

/**
 * Makes a server's log entry safe to hand to handlers and subscribers: keeps only `level`, `logger`
 * and `data`; a level outside the RFC 5424 names becomes `info`; every string (keys too) loses
 * control, bidi and line-separator characters and is clamped; nesting is cut below 16 levels.
 */
export function sanitizeLogParams(params: unknown): SanitizedLogParams {
  const entry = isJsonObject(params) ? params : {};
  const level = (LOGGING_LEVELS as readonly unknown[]).includes(entry.level) ? (entry.level as LoggingLevel) : 'info';
  const sanitized: SanitizedLogParams = { level, data: sanitizeData(entry.data, 0, new Set()) };
  if (typeof entry.logger === 'string') sanitized.logger = sanitizeText(entry.logger, MAX_LOGGER_NAME);
  return sanitized;
}

/** `depth` counts the arrays and objects around `value`; `path` holds them, to cut a cycle. */
function sanitizeData(value: unknown, depth: number, path: Set<object>): unknown {
  if (typeof value === 'string') return sanitizeText(value, MAX_LOG_STRING);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (typeof value !== 'object') return null;
  if (depth >= MAX_LOG_DEPTH || path.has(value)) return CUT_MARKER;
  path.add(value);
  const inner = (item: unknown) => sanitizeData(item, depth + 1, path);
  // fromEntries defines own properties, so a `__proto__` key stays a key.
  const copy = Array.isArray(value)
    ? Array.from(value, inner)
    : Object.fromEntries(Object.entries(value).map(([key, item]) => [sanitizeText(key, MAX_LOG_STRING), inner(item)]));
  path.delete(value);
  return copy;
}

import { McpCacheHint } from '../interfaces/mcp-module-options.interface';

/** The caching fields of a modern-era result. */
export interface CacheFields {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

const DEFAULT_TTL_MS = 0;
const DEFAULT_SCOPE = 'private';

/**
 * The caching hints of a result made of these entries: the shortest `ttlMs` and, if any entry is private, `private`.
 * An entry without hints takes the server's defaults; so does a result of no entries.
 */
export function cacheFields(
  entries: Array<{ cache: McpCacheHint | undefined }>,
  defaults: McpCacheHint | undefined,
): CacheFields {
  const hints = entries.length ? entries.map((entry) => ({ ...defaults, ...entry.cache })) : [defaults ?? {}];
  return {
    ttlMs: Math.max(0, Math.min(...hints.map((hint) => Math.floor(hint.ttlMs ?? DEFAULT_TTL_MS)))),
    cacheScope: hints.some((hint) => (hint.scope ?? DEFAULT_SCOPE) === 'private') ? 'private' : 'public',
  };
}

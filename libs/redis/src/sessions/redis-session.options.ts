/** Where {@link RedisSessionStore} keeps its keys, and its bounds (shared by every instance on the same prefix). */
export interface RedisSessionStoreOptions {
  /** Prepended to every key of the store (`<prefix>session:<id>`, `<prefix>sessions:…`). 1 to 200 characters. */
  prefix: string;
  /** Most live records in all. Default 10 000. */
  maxSessions?: number;
  /** Most bytes of records in all (each record's JSON size in UTF-8). Default 64 MiB. */
  maxBytes?: number;
  /** Most bytes of one record (its JSON size in UTF-8). Default 64 KiB. */
  maxRecordBytes?: number;
  /** A record neither updated nor touched for this long expires. Default 30 minutes. */
  idleMs?: number;
  /** Most live records of one principal (`record.principal`); records without one count in all only. Default 1 000. */
  maxSessionsPerPrincipal?: number;
}

/** The options with their defaults applied. */
export type ResolvedRedisSessionStoreOptions = Required<RedisSessionStoreOptions>;

/** Applies the defaults and refuses a malformed option with a message that names it. */
export function resolveSessionStoreOptions(options: RedisSessionStoreOptions): ResolvedRedisSessionStoreOptions {
  if (typeof options !== 'object' || options === null)
    throw new Error('RedisSessionStore: options are required (at least { prefix })');
  const { prefix } = options;
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > 200)
    throw new Error('RedisSessionStore: prefix must be a string of 1 to 200 characters');
  return {
    prefix,
    maxSessions: count('maxSessions', options.maxSessions, 10_000),
    maxBytes: count('maxBytes', options.maxBytes, 64 * 1024 * 1024),
    maxRecordBytes: count('maxRecordBytes', options.maxRecordBytes, 64 * 1024),
    idleMs: count('idleMs', options.idleMs, 30 * 60_000),
    maxSessionsPerPrincipal: count('maxSessionsPerPrincipal', options.maxSessionsPerPrincipal, 1_000),
  };
}

// Integers only: the values reach Lua and PEXPIRE, which take whole numbers.
function count(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`RedisSessionStore: ${name} must be a positive integer (got ${String(value)})`);
  return value;
}

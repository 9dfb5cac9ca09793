import { createHash } from 'node:crypto';
import type { McpAuthInfo } from './mcp-auth-info.interface';

/** How long "inactive" is remembered: long enough to absorb a client retrying a bad token, short enough to let a token
 * that was not active yet (or briefly misreported) through soon. */
export const INACTIVE_TTL_MS = 5_000;
/** The most the cache holds, in (estimated) bytes, whatever the entry count allows. */
export const DEFAULT_CACHE_MAX_BYTES = 16 * 1024 * 1024;
// Map entry, key string and object headers, roughly: counted so that many tiny entries still weigh something.
const ENTRY_OVERHEAD_BYTES = 128;

/** What an introspection said of a token: accepted, with what it grants and (from `exp`) until when; or not. */
export type IntrospectionVerdict = { active: true; auth: McpAuthInfo; expiresAtMs?: number } | { active: false };

export interface IntrospectionCacheOptions {
  /** The longest an accepted token's verdict is reused; 0 reuses nothing (concurrent lookups still share one). */
  ttlMs: number;
  /** The most verdicts kept. */
  maxEntries: number;
  /** The most bytes kept. Default {@link DEFAULT_CACHE_MAX_BYTES}. */
  maxBytes?: number;
  /** The clock, in milliseconds. */
  now?: () => number;
}

interface Entry {
  auth: McpAuthInfo | undefined;
  expiresAt: number;
  bytes: number;
}

/**
 * The introspection verdicts of recent tokens, keyed by the SHA-256 of the token (a dump of the cache holds no
 * usable credential), bounded by entry count and by bytes, least recently used evicted first. An accepted token is
 * remembered for the TTL but never past its `exp`; an inactive one for {@link INACTIVE_TTL_MS} (within the TTL).
 * Concurrent lookups of one token share one introspection; a failed introspection is not remembered.
 */
export class IntrospectionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<McpAuthInfo | undefined>>();
  private readonly maxBytes: number;
  private readonly now: () => number;
  private totalBytes = 0;

  constructor(private readonly options: IntrospectionCacheOptions) {
    this.maxBytes = options.maxBytes ?? DEFAULT_CACHE_MAX_BYTES;
    this.now = options.now ?? Date.now;
  }

  /** The key a token is cached under. */
  static keyOf(token: string): string {
    return createHash('sha256').update(token, 'utf8').digest('base64url');
  }

  /** How many verdicts are kept. */
  get size(): number {
    return this.entries.size;
  }

  /** Their estimated weight in bytes. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** The keys kept, least recently used first. */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * What `token` grants (undefined: not valid): the remembered verdict, else the one `introspect` brings (shared with
   * every lookup of the same token meanwhile). A copy each time, so that a handler changing its `ctx.auth` changes no
   * other request's.
   */
  async lookup(token: string, introspect: () => Promise<IntrospectionVerdict>): Promise<McpAuthInfo | undefined> {
    const key = IntrospectionCache.keyOf(token);
    const entry = this.fresh(key);
    if (entry) return copyOf(entry.auth);
    let flight = this.inFlight.get(key);
    if (!flight) {
      flight = introspect().then((verdict) => this.remember(key, verdict));
      this.inFlight.set(key, flight);
      const settled = () => void this.inFlight.delete(key);
      flight.then(settled, settled);
    }
    return copyOf(await flight);
  }

  private fresh(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) {
      this.totalBytes -= entry.bytes;
      return undefined;
    }
    this.entries.set(key, entry); // most recently used last
    return entry;
  }

  private remember(key: string, verdict: IntrospectionVerdict): McpAuthInfo | undefined {
    const auth = verdict.active ? verdict.auth : undefined;
    const now = this.now();
    const ttl = verdict.active
      ? Math.min(this.options.ttlMs, (verdict.expiresAtMs ?? Infinity) - now)
      : Math.min(INACTIVE_TTL_MS, this.options.ttlMs);
    const bytes = ENTRY_OVERHEAD_BYTES + key.length + Buffer.byteLength(JSON.stringify(auth ?? null), 'utf8');
    if (ttl <= 0 || this.options.maxEntries < 1 || bytes > this.maxBytes) return auth;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.totalBytes -= previous.bytes;
    }
    this.entries.set(key, { auth, expiresAt: now + ttl, bytes });
    this.totalBytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.options.maxEntries && this.totalBytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.totalBytes -= entry.bytes;
    }
    return auth;
  }
}

function copyOf(auth: McpAuthInfo | undefined): McpAuthInfo | undefined {
  return auth && { ...auth, scopes: [...auth.scopes], claims: structuredClone(auth.claims) };
}

/** Options of {@link RedisEventStore}: where its keys live and how much it keeps. */
export interface RedisEventStoreOptions {
  /** Prepended to every key the store writes (`<prefix>events:…`); every instance of one server uses the same. */
  prefix: string;
  /** Events kept per stream (priming marks included); the oldest are dropped past it. Default 1 000. */
  maxEventsPerStream?: number;
  /**
   * Bytes of event data kept per stream (each message's JSON, UTF-8); the oldest events are dropped past it, and an
   * event larger than it gets an id but is not kept. Default 8 MiB.
   */
  maxBytesPerStream?: number;
  /** Bytes of event data kept per session; its least recently written streams are dropped past it. Default 16 MiB. */
  maxBytesPerSession?: number;
  /** Bytes of event data kept in all; the least recently written streams are dropped past it. Default 64 MiB. */
  maxBytes?: number;
  /** Streams kept in all; the least recently written is dropped past it. Default 10 000. */
  maxStreams?: number;
  /** A stream not written for this long expires. Default 5 minutes. */
  ttlMs?: number;
}

/** The options with their defaults applied, the byte budgets nested (stream ≤ session ≤ all). */
export type ResolvedEventStoreOptions = Required<RedisEventStoreOptions>;

const MiB = 1024 * 1024;
const MAX_PREFIX_LENGTH = 200;
// A replay or a trim runs in one script over at most this many entries: Redis runs nothing else meanwhile.
const MAX_EVENTS_PER_STREAM = 100_000;

/** Applies the defaults and refuses a malformed option with a message that names it. */
export function resolveEventStoreOptions(options: RedisEventStoreOptions): ResolvedEventStoreOptions {
  if (typeof options !== 'object' || options === null) throw new Error('RedisEventStore: options are required');
  const { prefix } = options;
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > MAX_PREFIX_LENGTH)
    throw new Error(`RedisEventStore: prefix must be a string of 1 to ${MAX_PREFIX_LENGTH} characters`);
  const maxEventsPerStream = count('maxEventsPerStream', options.maxEventsPerStream, 1_000);
  if (maxEventsPerStream > MAX_EVENTS_PER_STREAM)
    throw new Error(`RedisEventStore: maxEventsPerStream must be at most ${MAX_EVENTS_PER_STREAM}`);
  const maxBytes = count('maxBytes', options.maxBytes, 64 * MiB);
  const maxBytesPerSession = Math.min(count('maxBytesPerSession', options.maxBytesPerSession, 16 * MiB), maxBytes);
  return {
    prefix,
    maxEventsPerStream,
    // A stream never outgrows its session's budget or the store's, so trimming it alone always makes it fit.
    maxBytesPerStream: Math.min(count('maxBytesPerStream', options.maxBytesPerStream, 8 * MiB), maxBytesPerSession),
    maxBytesPerSession,
    maxBytes,
    maxStreams: count('maxStreams', options.maxStreams, 10_000),
    ttlMs: count('ttlMs', options.ttlMs, 5 * 60_000),
  };
}

function count(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`RedisEventStore: ${name} must be a positive integer (got ${String(value).slice(0, 40)})`);
  return value;
}

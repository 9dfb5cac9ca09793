/** Longest session or stream id the store takes (the server's are UUIDs). */
export const MAX_ID_LENGTH = 128;
// `<streamId>:<ms>-<seq>`, each number at most 20 digits.
const MAX_EVENT_ID_LENGTH = MAX_ID_LENGTH + 1 + 41;
// Visible ASCII, what the MCP specification allows in a session id.
const ID = /^[\x21-\x7E]+$/;
const ENTRY_ID = /^(0|[1-9]\d{0,19})-(0|[1-9]\d{0,19})$/;
const U64_MAX = 2n ** 64n - 1n;

/** `value` when it is a session or stream id the store takes; a clear error otherwise. */
export function checkId(name: 'sessionId' | 'streamId', value: unknown): string {
  if (!isId(value)) throw new Error(`RedisEventStore: ${name} must be 1 to ${MAX_ID_LENGTH} visible ASCII characters`);
  return value;
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_ID_LENGTH && ID.test(value);
}

/**
 * True for a canonical Redis stream entry id (`<ms>-<seq>`, no leading zeros, each part a 64-bit unsigned number)
 * after which a range can start: the greatest id has no successor, and an exclusive range from it is an error.
 */
export function isEntryId(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = ENTRY_ID.exec(value);
  if (!match) return false;
  const ms = BigInt(match[1]);
  const seq = BigInt(match[2]);
  return ms <= U64_MAX && seq <= U64_MAX && !(ms === U64_MAX && seq === U64_MAX);
}

/** A `Last-Event-ID` taken apart: the stream it names and the Redis entry id within it. */
export interface EventCursor {
  streamId: string;
  entryId: string;
}

/** Parses `<streamId>:<entryId>`; undefined for anything else (a client sent it: never an error). */
export function parseEventId(eventId: unknown): EventCursor | undefined {
  if (typeof eventId !== 'string' || eventId.length > MAX_EVENT_ID_LENGTH) return undefined;
  // Entry ids hold no colon, stream ids may.
  const separator = eventId.lastIndexOf(':');
  if (separator <= 0) return undefined;
  const streamId = eventId.slice(0, separator);
  const entryId = eventId.slice(separator + 1);
  return isId(streamId) && isEntryId(entryId) ? { streamId, entryId } : undefined;
}

/**
 * The key of one id in the key scheme: `%` and `:` escaped, so a segment never holds the separator and distinct
 * ids never share a segment. A session named `meta` would make its stream keys those of other sessions' indexes
 * (`<base>meta:<session>`): it is escaped too.
 */
export function keySegment(id: string): string {
  const escaped = id.replace(/[%:]/g, (char) => (char === '%' ? '%25' : '%3A'));
  return escaped === 'meta' ? '%6Deta' : escaped;
}

/**
 * The keys of the store under `<prefix>events:` (`base`); the scripts build the same names from `base` for the
 * streams they drop, so both sides must agree:
 * - `<base><s>:<t>` a Redis stream per MCP stream; `<base>meta:<s>:<t>` its hash (`floor`, `ended`);
 * - `<base>meta:<s>` a sorted set of the session's streams by last write;
 * - `<base>index` a sorted set of all streams (`<s>:<t>`) by last write; `<base>bytes` a hash of byte counts: per
 *   stream (`<s>:<t>`), per session (`<s>`), in all (`:total`), and the ordering counters (`:seq`, `:clock`).
 */
export class EventStoreKeys {
  readonly index: string;
  readonly bytes: string;

  constructor(readonly base: string) {
    this.index = `${base}index`;
    this.bytes = `${base}bytes`;
  }

  stream(session: string, stream: string): string {
    return `${this.base}${session}:${stream}`;
  }

  meta(session: string, stream: string): string {
    return `${this.base}meta:${session}:${stream}`;
  }

  session(session: string): string {
    return `${this.base}meta:${session}`;
  }
}

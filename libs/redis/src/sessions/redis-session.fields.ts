import type { SessionRecord, SessionRecordChanges } from '@conduit-mcp/server';

/** The longest session id kept (ids are UUIDs; a longer one names no session). */
export const MAX_SESSION_ID_LENGTH = 256;

/** A record as the fields of its Redis hash: one per property, each value JSON-encoded. */
export interface EncodedRecord {
  /** field, value, field, value… (properties whose value JSON leaves out, such as undefined, are absent). */
  pairs: string[];
  /** The record's JSON size in UTF-8 bytes. */
  bytes: number;
}

/** Changes to a record as hash fields: those to set, and those to remove (changed to undefined). */
export interface EncodedChanges {
  pairs: string[];
  removed: string[];
}

/**
 * The UTF-8 size of one field in the record's JSON, `"name":value` and its comma. The update script sums the same
 * from the hash (string.len counts bytes), so the size the store keeps equals `JSON.stringify(record)`'s in UTF-8.
 */
export function fieldBytes(name: string, json: string): number {
  return Buffer.byteLength(name) + Buffer.byteLength(json) + 4;
}

/** Whether `id` could name a stored record; throws on a non-string (a caller's bug, not a client's input). */
export function storableId(id: string): boolean {
  if (typeof id !== 'string') throw new Error(`RedisSessionStore: a session id must be a string (got ${typeof id})`);
  return id.length > 0 && id.length <= MAX_SESSION_ID_LENGTH;
}

/** The record's hash fields and size; throws on a record that is not one. */
export function encodeRecord(record: SessionRecord): EncodedRecord {
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    throw new Error('RedisSessionStore: create takes a session record (an object)');
  if (!storableId(record.id))
    throw new Error(`RedisSessionStore: a session id must have 1 to ${MAX_SESSION_ID_LENGTH} characters`);
  if (record.principal !== undefined && typeof record.principal !== 'string')
    throw new Error('RedisSessionStore: a record principal must be a string when present');
  const pairs: string[] = [];
  let bytes = 1; // the braces, less the comma the last field does not have
  for (const [name, value] of Object.entries(record)) {
    const json = JSON.stringify(value) as string | undefined;
    if (json === undefined) continue;
    pairs.push(name, json);
    bytes += fieldBytes(name, json);
  }
  return { pairs, bytes };
}

/** The changes as hash fields; `id` is never changed (as in the in-memory store). */
export function encodeChanges(changes: SessionRecordChanges): EncodedChanges {
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes))
    throw new Error('RedisSessionStore: update takes the changes as an object');
  if (changes.principal !== undefined && typeof changes.principal !== 'string')
    throw new Error('RedisSessionStore: a record principal must be a string when present');
  const pairs: string[] = [];
  const removed: string[] = [];
  for (const [name, value] of Object.entries(changes)) {
    if (name === 'id') continue;
    const json = JSON.stringify(value) as string | undefined;
    if (json === undefined) removed.push(name);
    else pairs.push(name, json);
  }
  return { pairs, removed };
}

/** The record a hash holds, or undefined for an empty (absent) one. */
export function decodeRecord(id: string, hash: Record<string, string>): SessionRecord | undefined {
  const names = Object.keys(hash);
  if (names.length === 0) return undefined;
  const record: Record<string, unknown> = {};
  for (const name of names) {
    let value: unknown;
    try {
      value = JSON.parse(hash[name]);
    } catch {
      throw new Error(`RedisSessionStore: field "${name}" of session ${id} is not JSON`);
    }
    // Defined, not assigned: a field named __proto__ stays a plain property.
    Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
  }
  if (record.id !== id) throw new Error(`RedisSessionStore: the hash of session ${id} holds another record`);
  return record as unknown as SessionRecord;
}

import { SessionCreation, SessionStore } from './session.store';
import { SessionRecord, SessionRecordChanges } from './session-record';

/** Bounds of {@link InMemorySessionStore}. */
export interface InMemorySessionStoreOptions {
  /** Most records kept. Default 10 000. */
  maxSessions?: number;
  /** Most bytes of records kept (their JSON size). Default 64 MiB. */
  maxBytes?: number;
  /** A record untouched for this long expires. Default 30 minutes. */
  idleMs?: number;
}

interface Entry {
  /** The record as JSON: what a shared store would keep, so that no caller shares an object with the store. */
  json: string;
  touched: number;
}

/**
 * The default {@link SessionStore}: one process, bounded in count and bytes, idle records expire (checked on access
 * and by a sweep when the store is full, so no timer runs). A full store refuses new sessions; it never evicts a
 * live one to make room.
 */
export class InMemorySessionStore implements SessionStore {
  private readonly records = new Map<string, Entry>();
  private bytes = 0;
  private readonly maxSessions: number;
  private readonly maxBytes: number;
  private readonly idleMs: number;

  constructor(options: InMemorySessionStoreOptions = {}) {
    this.maxSessions = options.maxSessions ?? 10_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.idleMs = options.idleMs ?? 30 * 60_000;
  }

  async create(record: SessionRecord): Promise<SessionCreation> {
    if (this.live(record.id)) return { ok: false, reason: 'exists' };
    const json = JSON.stringify(record);
    if (!this.fits(json.length)) this.sweep();
    if (!this.fits(json.length)) return { ok: false, reason: 'full' };
    this.records.set(record.id, { json, touched: Date.now() });
    this.bytes += json.length;
    return { ok: true };
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const entry = this.live(id);
    return entry && (JSON.parse(entry.json) as SessionRecord);
  }

  async update(id: string, changes: SessionRecordChanges): Promise<boolean> {
    const entry = this.live(id);
    if (!entry) return false;
    const json = JSON.stringify({ ...(JSON.parse(entry.json) as SessionRecord), ...changes, id });
    if (json.length - entry.json.length > this.maxBytes - this.bytes) return false; // would overflow the byte bound
    this.bytes += json.length - entry.json.length;
    entry.json = json;
    entry.touched = Date.now();
    return true;
  }

  async touch(id: string): Promise<void> {
    const entry = this.live(id);
    if (entry) entry.touched = Date.now();
  }

  async delete(id: string): Promise<boolean> {
    const entry = this.records.get(id);
    if (!entry) return false;
    this.remove(id, entry);
    return true;
  }

  async count(): Promise<number> {
    this.sweep();
    return this.records.size;
  }

  private fits(size: number): boolean {
    return this.records.size < this.maxSessions && this.bytes + size <= this.maxBytes;
  }

  /** The entry, unless it expired (then it is removed). */
  private live(id: string): Entry | undefined {
    const entry = this.records.get(id);
    if (!entry) return undefined;
    if (Date.now() - entry.touched < this.idleMs) return entry;
    this.remove(id, entry);
    return undefined;
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const [id, entry] of this.records) if (entry.touched <= cutoff) this.remove(id, entry);
  }

  private remove(id: string, entry: Entry): void {
    this.records.delete(id);
    this.bytes -= entry.json.length;
  }
}

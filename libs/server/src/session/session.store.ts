import type { McpStateHealth } from '../health/state-health.interface';
import { SessionRecord, SessionRecordChanges } from './session-record';

/** Why a session could not be created. */
export type SessionCreation = { ok: true } | { ok: false; reason: 'full' | 'exists' };

/**
 * Where session records are kept, shared by every instance of a server (the in-memory default serves one process;
 * `@conduit-mcp/redis` serves many). Asynchronous; bounded in count and bytes; records expire when idle.
 * Inject it with the token of the same name; choose it with `McpModule.forRoot({ sessionStore })`.
 */
export interface SessionStore {
  /** Creates a record; refused when the store is full or the id is taken. Never evicts another session. */
  create(record: SessionRecord): Promise<SessionCreation>;
  /** The record, or undefined when there is none (never created, deleted, or expired). */
  get(id: string): Promise<SessionRecord | undefined>;
  /** Applies changes to a record; false when there is no such record. */
  update(id: string, changes: SessionRecordChanges): Promise<boolean>;
  /** Restarts a record's idle clock (the caller limits how often). */
  touch(id: string): Promise<void>;
  /** Deletes a record; false when there was none. */
  delete(id: string): Promise<boolean>;
  /**
   * Optional: whether a record exists, cheaper than {@link get} (a shared store checks it on each request of a
   * session another instance may have deleted); without it, `get` is used.
   */
  exists?(id: string): Promise<boolean>;
  /** How many records are kept. */
  count(): Promise<number>;
  /**
   * Optional: whether the store can serve now (a shared store: its connection). `McpHealthIndicator` reports it and
   * is down while it is down; an answer slower than 2 s counts as down. Never rejects.
   */
  health?(): Promise<McpStateHealth>;
}

/** The injection token of the {@link SessionStore} (interface and token under one name). */
export const SessionStore = Symbol('SessionStore');

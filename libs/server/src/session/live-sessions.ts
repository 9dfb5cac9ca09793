import { Logger } from '@nestjs/common';
import { McpSession } from './mcp-session';
import { SessionStore } from './session.store';
import { SessionRecordChanges } from './session-record';

/** Bounds of {@link LiveSessions}, and the store its sessions' records are written to. */
export interface LiveSessionsOptions {
  /** Most live sessions. Default 10 000. */
  maxSessions?: number;
  /**
   * A live session idle this long here (and with nothing in flight) is ended here; its record is left to the store's
   * idle expiry. Default 30 minutes.
   */
  idleMs?: number;
  /** Where the sessions' records are kept (written through: created, changed and deleted with the sessions). */
  store?: SessionStore;
}

/**
 * The live sessions of this instance: the objects that hold what cannot be serialized (the outbound stream, in-flight
 * cancellations, pending server-to-client requests). Bounded and idle-evicting; ending a session removes it, removing
 * a session ends it. A session's serializable record lives in the `SessionStore`, shared by every instance.
 */
export class LiveSessions {
  private readonly sessions = new Map<string, McpSession>();
  // The session last put at the most recently used end of `sessions`.
  private newest: McpSession | undefined;
  private readonly sweeper: NodeJS.Timeout;
  private readonly maxSessions: number;
  private readonly idleMs: number;
  private readonly store: SessionStore | undefined;
  private readonly logger = new Logger('McpSessions');

  constructor(options: LiveSessionsOptions = {}) {
    this.maxSessions = options.maxSessions ?? 10_000;
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.store = options.store;
    this.sweeper = setInterval(() => this.evictIdle(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  add(session: McpSession): void {
    this.insert(session);
    if (this.store && session.persistent) {
      const created = this.store.create(session.record());
      this.written(
        created.then((outcome) => outcome.ok || this.logger.warn(`Session record not kept: ${outcome.reason}`)),
        session.id,
      );
    }
  }

  // Makes room (ending the least recently used session past the bound) and keeps the session live here.
  private insert(session: McpSession): void {
    while (this.sessions.size >= this.maxSessions) {
      const oldest = this.leastRecentlyUsed();
      if (!oldest) break;
      this.drop(oldest.id, true);
    }
    this.sessions.set(session.id, session);
    this.newest = session;
    session.onClose(() => {
      this.sessions.delete(session.id);
      if (this.newest === session) this.newest = undefined;
    });
  }

  /** Writes a live session's changes (log level, subscriptions, initialized) to its record in the store. */
  save(session: McpSession, changes: SessionRecordChanges): void {
    if (this.store && session.persistent && this.sessions.get(session.id) === session)
      this.written(this.store.update(session.id, changes), session.id);
  }

  // The store is written in the background: a failure is logged, never thrown at the request that caused it.
  private written(write: Promise<unknown>, id: string): void {
    write.catch((error: unknown) =>
      this.logger.error(
        `Session store write failed for ${id}: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }

  values(): IterableIterator<McpSession> {
    return this.sessions.values();
  }

  /** The live session `id` names, without counting it as activity (for events about it). */
  peek(id: string): McpSession | undefined {
    return this.sessions.get(id);
  }

  get(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    session.touch();
    this.touchRecord(session);
    // Re-insert so Map order stays least-recently-used first (nothing to move when it is the most recent already).
    if (this.newest !== session) {
      this.sessions.delete(id);
      this.sessions.set(id, session);
      this.newest = session;
    }
    return session;
  }

  /**
   * The session `id` names: this instance's live one, found without awaiting anything; else, when the store has its
   * record (another instance made it, or this one restarted), a live session rebuilt from the record. Undefined for
   * an unknown id, and for a session bound to another principal than `principal`.
   */
  find(id: string, principal?: string): McpSession | undefined | Promise<McpSession | undefined> {
    const session = this.get(id);
    if (session) return session.principal === principal ? session : undefined;
    return this.store ? this.adopt(id, principal) : undefined;
  }

  private async adopt(id: string, principal: string | undefined): Promise<McpSession | undefined> {
    const record = await this.store!.get(id);
    if (!record || record.revision === undefined || record.principal !== principal) return undefined;
    const raced = this.get(id); // another request of the client adopted it meanwhile
    if (raced) return raced;
    const session = McpSession.fromRecord(record);
    this.insert(session);
    return session;
  }

  /** Ends a session for good (the client deleted it, its connection ended): its record goes too. */
  delete(id: string): boolean {
    return this.drop(id, true);
  }

  /**
   * Ends every live session of this instance (application shutdown). Their records stay in the store, so that
   * another instance can serve them; the store's idle expiry ends them.
   */
  clear(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.drop(id, false);
  }

  // Ends a live session here, and its record with it unless another instance may still serve it (shutdown).
  private drop(id: string, deleteRecord: boolean): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    if (deleteRecord && this.store && session.persistent) this.written(this.store.delete(id), id);
    this.sessions.delete(id);
    session.close();
    return true;
  }

  // The store's idle clock restarts at most a few times per idle period, not on every request.
  private touchRecord(session: McpSession): void {
    if (!this.store || !session.persistent || session.lastActivity - session.recordTouchedAt < this.idleMs / 8) return;
    session.recordTouchedAt = session.lastActivity;
    this.written(this.store.touch(session.id), session.id);
  }

  private leastRecentlyUsed(): McpSession | undefined {
    return this.sessions.values().next().value;
  }

  private evictIdle(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const session of [...this.sessions.values()]) {
      // Idle here is not idle everywhere: another instance may be serving the session. Its record stays, for the
      // store's own idle expiry to end (the record's clock restarts with the session's activity, see touchRecord).
      if (session.lastActivity < cutoff && session.inFlightCount === 0) this.drop(session.id, false);
    }
  }
}

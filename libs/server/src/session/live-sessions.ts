import { Logger } from '@nestjs/common';
import { McpSession } from './mcp-session';
import { SessionStore } from './session.store';
import { SessionRecordChanges } from './session-record';

/** Bounds of {@link LiveSessions}, and the store its sessions' records are written to. */
export interface LiveSessionsOptions {
  /** Most live sessions; past it {@link LiveSessions.admit} refuses new ones (nothing is evicted). Default 10 000. */
  maxSessions?: number;
  /** Most live sessions of one owner (a principal, or an anonymous client's address). Default 1 000. */
  maxSessionsPerOwner?: number;
  /**
   * A live session idle this long here (and with nothing in flight) is ended here; its record is left to the store's
   * idle expiry. Default 30 minutes.
   */
  idleMs?: number;
  /** Where the sessions' records are kept (written through: created, changed and deleted with the sessions). */
  store?: SessionStore;
}

/** Why {@link LiveSessions.admit} refused a new session: every slot is taken, or every slot of its owner. */
export type SessionRefusal = 'full' | 'owner-full';

/** Room for one new session, held from {@link LiveSessions.admit} until the session is added or the ticket released. */
export class SessionTicket {
  private held = true;

  constructor(
    readonly owner: string | undefined,
    private readonly onRelease: (handedOver: boolean) => void,
  ) {}

  /** Gives the room back (the session was not made after all). Idempotent. */
  release(): void {
    this.end(false);
  }

  /** Hands the room to the session added with it; false when the ticket was already released. */
  handOver(): boolean {
    return this.end(true);
  }

  private end(handedOver: boolean): boolean {
    if (!this.held) return false;
    this.held = false;
    this.onRelease(handedOver);
    return true;
  }
}

/**
 * The live sessions of this instance: the objects that hold what cannot be serialized (the outbound stream, in-flight
 * cancellations, pending server-to-client requests). Bounded in all and per owner; a new session past a bound is
 * refused, never made room for by ending another: only sessions idle past `idleMs` (with nothing in flight) are
 * ended, by a periodic sweep or when room is asked for. Ending a session removes it, removing a session ends it. A
 * session's serializable record lives in the `SessionStore`, shared by every instance.
 */
export class LiveSessions {
  private readonly sessions = new Map<string, McpSession>();
  // Room held by tickets not yet handed over to a session.
  private reserved = 0;
  // Live sessions and held tickets per owner (owners with none are not kept).
  private readonly owners = new Map<string, number>();
  private lastSweep = 0;
  private readonly sweeper: NodeJS.Timeout;
  private readonly maxSessions: number;
  private readonly maxPerOwner: number;
  private readonly idleMs: number;
  private readonly store: SessionStore | undefined;
  private readonly logger = new Logger('McpSessions');

  constructor(options: LiveSessionsOptions = {}) {
    this.maxSessions = options.maxSessions ?? 10_000;
    this.maxPerOwner = options.maxSessionsPerOwner ?? 1_000;
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.store = options.store;
    this.sweeper = setInterval(() => this.evictIdle(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Room for a new session of `owner` (undefined: counted in all only), or why there is none. Sessions idle past
   * `idleMs` are swept first when room is short (at most once a second, so a client refused again and again does
   * not make every refusal scan every session).
   */
  admit(owner: string | undefined): SessionTicket | SessionRefusal {
    let refusal = this.refusal(owner);
    if (refusal && Date.now() - this.lastSweep >= Math.min(1_000, this.idleMs)) {
      this.evictIdle();
      refusal = this.refusal(owner);
    }
    if (refusal) return refusal;
    this.reserved++;
    this.count(owner, 1);
    return new SessionTicket(owner, (handedOver) => {
      this.reserved--;
      if (!handedOver) this.count(owner, -1);
    });
  }

  private refusal(owner: string | undefined): SessionRefusal | undefined {
    if (this.sessions.size + this.reserved >= this.maxSessions) return 'full';
    if (owner !== undefined && (this.owners.get(owner) ?? 0) >= this.maxPerOwner) return 'owner-full';
    return undefined;
  }

  private count(owner: string | undefined, delta: number): void {
    if (owner === undefined) return;
    const count = (this.owners.get(owner) ?? 0) + delta;
    if (count > 0) this.owners.set(owner, count);
    else this.owners.delete(owner);
  }

  /**
   * Keeps a session live here and writes its record to the store. With the `ticket` {@link admit} gave, the session
   * takes the room it held; without one (stdio, `McpServer.connect`), it is counted but was never refused.
   */
  add(session: McpSession, ticket?: SessionTicket): void {
    this.insert(session, ticket?.handOver() ? ticket.owner : undefined);
    if (this.store && session.persistent) {
      const created = this.store.create(session.record());
      this.written(
        created.then((outcome) => outcome.ok || this.logger.warn(`Session record not kept: ${outcome.reason}`)),
        session.id,
      );
    }
  }

  // Keeps the session live here; its owner's count goes down when it ends.
  private insert(session: McpSession, owner: string | undefined): void {
    this.sessions.set(session.id, session);
    session.onClose(() => {
      if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
      this.count(owner, -1);
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

  // Adopting is not refused at the bound: the session exists already (the store admitted it, and bounds it).
  private async adopt(id: string, principal: string | undefined): Promise<McpSession | undefined> {
    const record = await this.store!.get(id);
    if (!record || record.revision === undefined || record.principal !== principal) return undefined;
    const raced = this.get(id); // another request of the client adopted it meanwhile
    if (raced) return raced;
    const session = McpSession.fromRecord(record);
    this.insert(session, undefined);
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

  private evictIdle(): void {
    this.lastSweep = Date.now();
    const cutoff = this.lastSweep - this.idleMs;
    for (const session of [...this.sessions.values()]) {
      // Idle here is not idle everywhere: another instance may be serving the session. Its record stays, for the
      // store's own idle expiry to end (the record's clock restarts with the session's activity, see touchRecord).
      if (session.lastActivity < cutoff && session.inFlightCount === 0) this.drop(session.id, false);
    }
  }
}

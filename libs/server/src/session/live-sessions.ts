import { Logger } from '@nestjs/common';
import { McpSession } from './mcp-session';
import { SessionCreation, SessionStore } from './session.store';
import { SessionRecordChanges } from './session-record';
import { storeCall } from './store.call';
import { since } from '../telemetry/handler-events';
import { publishSessionEvent, sessionsObserved } from '../telemetry/lifecycle-events';
import { McpSessionEvent } from '../telemetry/mcp.channels';

/** Bounds of {@link LiveSessions}, and the store its sessions' records are written to. */
export interface LiveSessionsOptions {
  /** The server's name, in the session events (`conduit-mcp:session`). */
  server?: string;
  /** Most live sessions; past it {@link LiveSessions.admit} refuses new ones (nothing is evicted). Default 10 000. */
  maxSessions?: number;
  /** Most live sessions of one owner (a principal, or an anonymous client's address). Default 1 000. */
  maxSessionsPerOwner?: number;
  /**
   * A live session idle this long here (and with nothing in flight) is ended here; its record is left to the store's
   * idle expiry. Default 30 minutes.
   */
  idleMs?: number;
  /**
   * Where the sessions' records are kept (written through: created and changed with the sessions, deleted when one
   * is ended for good).
   */
  store?: SessionStore;
  /**
   * The store is shared with other instances (given in the options, not the module's own in-memory default): a live
   * copy is served only while the store still has its record, so that a session deleted on another instance is gone
   * here at once, not when the bus tells.
   */
  sharedStore?: boolean;
}

/** Told of a session ended or changed; may return a promise of what it started (publishing on the bus). */
export type SessionListener = (session: McpSession) => void | Promise<unknown>;

/** Why {@link LiveSessions.admit} refused a new session: every slot is taken, or every slot of its owner. */
export type SessionRefusal = 'full' | 'owner-full';

/**
 * Whether a new session's record was kept: refused by the store (full, id taken), or the store failed or did not
 * answer in time (`unavailable`).
 */
export type SessionKept = SessionCreation | { ok: false; reason: 'unavailable' };

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
 * session's serializable record lives in the `SessionStore`, shared by every instance: closing a session here (idle,
 * shutdown) leaves it there; only ending it for good ({@link delete}) deletes it.
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
  private readonly sharedStore: boolean;
  private readonly server: string;
  private readonly logger = new Logger('McpSessions');
  private readonly endedListeners = new Set<SessionListener>();
  private readonly changedListeners = new Set<SessionListener>();

  constructor(options: LiveSessionsOptions = {}) {
    this.maxSessions = options.maxSessions ?? 10_000;
    this.maxPerOwner = options.maxSessionsPerOwner ?? 1_000;
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.store = options.store;
    this.sharedStore = !!options.store && options.sharedStore === true;
    this.server = options.server ?? 'default';
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
   * takes the room it held; without one (stdio, `McpServer.connect`), it is counted but was never refused. Resolves
   * (never rejects) once the record is written, or with why it was not: a session no other instance can find.
   * An HTTP transport then refuses the session (503: fail closed) and calls {@link closeLocal}; stdio, whose session
   * no other instance could serve anyway, keeps it.
   */
  add(session: McpSession, ticket?: SessionTicket): Promise<SessionKept> {
    this.insert(session, ticket?.handOver() ? ticket.owner : undefined);
    if (!this.store || !session.persistent) return Promise.resolve({ ok: true });
    const store = this.store;
    return storeCall('session', () => store.create(session.record())).then(
      (outcome) => {
        if (!outcome.ok) this.logger.warn(`Session record not kept for ${session.id}: ${outcome.reason}`);
        return outcome;
      },
      (error: unknown) => {
        this.logger.error(`Session record not written for ${session.id}: ${messageOf(error)}`);
        return { ok: false, reason: 'unavailable' } as const;
      },
    );
  }

  // Keeps the session live here; its owner's count goes down when it ends.
  private insert(session: McpSession, owner: string | undefined): void {
    this.sessions.set(session.id, session);
    const opened = session.persistent && sessionsObserved() ? this.published(session, 'opened') : undefined;
    session.onClose(() => {
      if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
      this.count(owner, -1);
      if (opened !== undefined) this.published(session, 'closed', opened);
    });
  }

  // Publishes a session's `opened` or `closed` on the session channel; returns when (performance.now()).
  private published(session: McpSession, type: McpSessionEvent['type'], opened?: number): number {
    const event: McpSessionEvent = { server: this.server, type, transport: session.openedOver ?? 'memory' };
    if (session.revision !== undefined) event.protocolVersion = session.revision;
    if (opened !== undefined) {
      event.durationMs = since(opened);
      event.ended = session.endedForGood;
    }
    publishSessionEvent(event);
    return performance.now();
  }

  /**
   * Calls `listener` with each session ended for good here ({@link delete}: its record is gone), once the store has
   * deleted the record (or failed to): the event bus tells the other instances, the event store forgets its streams.
   * Not called for a session only closed here (idle, shutdown). Returns the unsubscribe function.
   */
  onEnded(listener: SessionListener): () => void {
    this.endedListeners.add(listener);
    return () => this.endedListeners.delete(listener);
  }

  /**
   * Calls `listener` with each session whose record {@link save} changed, once the store has it: the event bus tells
   * the other instances holding a live copy to reload it. Returns the unsubscribe function.
   */
  onChanged(listener: SessionListener): () => void {
    this.changedListeners.add(listener);
    return () => this.changedListeners.delete(listener);
  }

  /** Writes a live session's changes (log level, subscriptions, initialized) to its record in the store. */
  save(session: McpSession, changes: SessionRecordChanges): void {
    if (!this.store || !session.persistent || this.sessions.get(session.id) !== session) return;
    const updated = this.store.update(session.id, changes);
    this.written(
      this.changedListeners.size
        ? updated.then((ok) => (ok ? this.tell(this.changedListeners, session, 'changed') : undefined))
        : updated,
      session.id,
    );
  }

  // The store is written in the background: a failure is logged, never thrown at the request that caused it.
  private written(write: Promise<unknown>, id: string): void {
    write.catch((error: unknown) => this.logger.error(`Session store write failed for ${id}: ${messageOf(error)}`));
  }

  // A listener that throws is logged: it must not keep the others from hearing of the session.
  private async tell(listeners: Set<SessionListener>, session: McpSession, what: string): Promise<void> {
    const started: Array<Promise<unknown>> = [];
    for (const listener of listeners) {
      try {
        const outcome = listener(session);
        if (outcome) started.push(outcome.catch((error: unknown) => this.failed(what, session, error)));
      } catch (error) {
        this.failed(what, session, error);
      }
    }
    if (started.length) await Promise.all(started);
  }

  private failed(what: string, session: McpSession, error: unknown): void {
    this.logger.error(`A session-${what} listener failed for ${session.id}: ${messageOf(error)}`);
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
   * an unknown id, and for a session bound to another principal than `principal`. The lookup in the store rejects
   * with a `StoreUnavailableError` when the store fails or does not answer in time.
   */
  find(id: string, principal?: string): McpSession | undefined | Promise<McpSession | undefined> {
    const session = this.get(id);
    if (session) {
      if (session.principal !== principal) return undefined;
      return this.sharedStore && session.persistent ? this.confirm(session) : session;
    }
    return this.store ? this.adopt(id, principal) : undefined;
  }

  // A live copy of a shared session is served while its record exists: another instance may have deleted it an
  // instant ago, and its bus event may still be on its way. Gone: the copy closes here.
  private async confirm(session: McpSession): Promise<McpSession | undefined> {
    const store = this.store!;
    const exists = await storeCall('session', () =>
      store.exists ? store.exists(session.id) : store.get(session.id).then((record) => record !== undefined),
    );
    if (exists) return session;
    if (this.sessions.get(session.id) === session) this.drop(session.id, false);
    return undefined;
  }

  // Adopting is not refused at the bound: the session exists already (the store admitted it, and bounds it). A store
  // that fails or does not answer rejects with a StoreUnavailableError (the HTTP transports answer 503).
  private async adopt(id: string, principal: string | undefined): Promise<McpSession | undefined> {
    const store = this.store!;
    const record = await storeCall('session', () => store.get(id));
    if (!record || record.revision === undefined || record.principal !== principal) return undefined;
    const raced = this.get(id); // another request of the client adopted it meanwhile
    if (raced) return raced;
    const session = McpSession.fromRecord(record);
    this.insert(session, undefined);
    return session;
  }

  /**
   * Ends a session for good (the client deleted it, its connection ended, `endSessionsOf`): its record goes too, and
   * the {@link onEnded} listeners hear of it. False when it is not live here.
   */
  delete(id: string): boolean {
    return this.drop(id, true);
  }

  /**
   * {@link delete}, resolving once the record is deleted and the {@link onEnded} listeners were told (the bus took
   * the event): a client told its session ended (`DELETE` answered) finds it gone on every instance. Resolves false
   * when the session is not live here.
   */
  async end(id: string): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    session.endedForGood = true;
    session.close();
    await this.ended(session);
    return true;
  }

  /**
   * Closes this instance's live copy of a session, leaving its record and streams to whoever still serves it (it was
   * ended on another instance, or its record could not be written). False when it is not live here.
   */
  closeLocal(id: string): boolean {
    return this.drop(id, false);
  }

  /**
   * Reloads this instance's live copy of session `id` from its record (another instance changed it); closes the copy
   * when the record is gone. Does nothing for a session not live here. Never rejects: a store failure is logged, and
   * the copy keeps what it had.
   */
  async reload(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session || !this.store || !session.persistent) return;
    const store = this.store;
    try {
      const record = await storeCall('session', () => store.get(id));
      if (this.sessions.get(id) !== session) return; // ended or replaced meanwhile
      if (record) session.applyRecord(record);
      else this.drop(id, false);
    } catch (error) {
      this.logger.error(`Session ${id} not reloaded: ${messageOf(error)}`);
    }
  }

  /**
   * Ends every live session of this instance (application shutdown). Their records stay in the store, so that
   * another instance can serve them; the store's idle expiry ends them.
   */
  clear(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.drop(id, false);
  }

  // Ends a live session here, and for good (its record deleted, the listeners told) when `forGood`; else another
  // instance may still serve it (shutdown, idle here, ended elsewhere).
  private drop(id: string, forGood: boolean): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    if (forGood) session.endedForGood = true;
    session.close();
    if (forGood) void this.ended(session);
    return true;
  }

  // The listeners hear of the end once the record is gone, so that an instance they tell cannot adopt it again.
  // Resolves once they were told and what they started (publishing on the bus) settled.
  private ended(session: McpSession): Promise<void> {
    const tell = () => this.tell(this.endedListeners, session, 'ended');
    if (!this.store || !session.persistent) return tell();
    const store = this.store;
    const deleted = storeCall('session', () => store.delete(session.id));
    this.written(deleted, session.id);
    return deleted.then(tell, tell);
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

import { McpSession } from './mcp-session';

/** Where live sessions are kept. The in-memory default is bounded and evicts idle sessions. */
export interface SessionStore {
  add(session: McpSession): void;
  get(id: string): McpSession | undefined;
  delete(id: string): boolean;
  readonly size: number;
  /** Live sessions, for notifications sent to every session (list changes, resource updates). */
  values(): IterableIterator<McpSession>;
  /** Ends every session (application shutdown). */
  clear(): void;
}

/** Bounded, idle-evicting in-memory store; ending a session removes it, removing a session ends it. */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly maxSessions = 10_000,
    private readonly idleMs = 30 * 60_000,
  ) {
    this.sweeper = setInterval(() => this.evictIdle(), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  add(session: McpSession): void {
    while (this.sessions.size >= this.maxSessions) {
      const oldest = this.leastRecentlyUsed();
      if (!oldest) break;
      this.delete(oldest.id);
    }
    this.sessions.set(session.id, session);
    session.onClose(() => this.sessions.delete(session.id));
  }

  values(): IterableIterator<McpSession> {
    return this.sessions.values();
  }

  get(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    session.touch();
    // Re-insert so Map order stays least-recently-used first.
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  delete(id: string): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    session.close();
    return true;
  }

  clear(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.delete(id);
  }

  private leastRecentlyUsed(): McpSession | undefined {
    return this.sessions.values().next().value;
  }

  private evictIdle(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const session of [...this.sessions.values()]) {
      if (session.lastActivity < cutoff && session.inFlightCount === 0) this.delete(session.id);
    }
  }
}

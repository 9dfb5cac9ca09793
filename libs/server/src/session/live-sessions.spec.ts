import { InMemorySessionStore } from './in-memory-session.store';
import { LiveSessions, SessionTicket } from './live-sessions';
import { McpSession } from './mcp-session';
import { SessionStore } from './session.store';
import { StoreUnavailableError } from './store.call';

const settled = () => new Promise((resolve) => setImmediate(resolve)); // background store writes are done

/** An in-memory store whose every call rejects while `down`. */
function flaky(): SessionStore & { down: boolean } {
  const inner = new InMemorySessionStore({});
  const store = { down: false } as SessionStore & { down: boolean };
  for (const method of ['create', 'get', 'update', 'touch', 'delete', 'count'] as const) {
    (store as unknown as Record<string, unknown>)[method] = (...args: unknown[]) =>
      store.down
        ? Promise.reject(new Error('store down'))
        : (inner[method] as (...a: unknown[]) => Promise<unknown>).apply(inner, args);
  }
  return store;
}

// Admits and adds a session of `owner`; the refusal when there is no room.
function open(sessions: LiveSessions, id: string, owner?: string): McpSession | string {
  const ticket = sessions.admit(owner);
  if (!(ticket instanceof SessionTicket)) return ticket;
  const session = new McpSession(id);
  sessions.add(session, ticket);
  return session;
}

describe('LiveSessions', () => {
  const made: LiveSessions[] = [];
  const live = (options: ConstructorParameters<typeof LiveSessions>[0]) => {
    const sessions = new LiveSessions(options);
    made.push(sessions);
    return sessions;
  };
  afterEach(() => made.splice(0).forEach((sessions) => sessions.clear()));

  it('refuses a new session at the bound and ends none of the live ones to make room', () => {
    const sessions = live({ maxSessions: 2 });
    const a = open(sessions, 'a') as McpSession;
    const b = open(sessions, 'b') as McpSession;
    expect(open(sessions, 'c')).toBe('full');
    expect([a.closed, b.closed]).toEqual([false, false]);
    expect(sessions.size).toBe(2);
    b.close(); // ending a session gives its room back
    expect(open(sessions, 'c')).toBeInstanceOf(McpSession);
    expect(open(sessions, 'd')).toBe('full');
  });

  it('counts the room a ticket holds until it is released, and gives it back once only', () => {
    const sessions = live({ maxSessions: 2 });
    const held = sessions.admit(undefined) as SessionTicket;
    open(sessions, 'a');
    expect(sessions.admit(undefined)).toBe('full'); // one live, one held
    held.release();
    held.release();
    const next = sessions.admit(undefined) as SessionTicket;
    expect(next).toBeInstanceOf(SessionTicket);
    expect(sessions.admit(undefined)).toBe('full');
    next.release();
  });

  it('bounds the sessions of one owner, leaving room for the others', () => {
    const sessions = live({ maxSessions: 10, maxSessionsPerOwner: 2 });
    const first = open(sessions, 'm1', 'mallory') as McpSession;
    open(sessions, 'm2', 'mallory');
    expect(open(sessions, 'm3', 'mallory')).toBe('owner-full');
    expect(open(sessions, 'a1', 'alice')).toBeInstanceOf(McpSession);
    sessions.delete(first.id); // deleting one frees the owner's room
    expect(open(sessions, 'm3', 'mallory')).toBeInstanceOf(McpSession);
    expect(open(sessions, 'm4', 'mallory')).toBe('owner-full');
  });

  it('sweeps sessions idle past idleMs to make room, and only those', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const sessions = live({ maxSessions: 2, idleMs: 60_000 });
      const idle = open(sessions, 'idle') as McpSession;
      const busy = open(sessions, 'busy') as McpSession;
      jest.setSystemTime(1_000_000 + 30_000);
      sessions.get('busy'); // used half-way: not idle
      expect(open(sessions, 'x')).toBe('full'); // nothing idle long enough yet
      jest.setSystemTime(1_000_000 + 61_000);
      const made = open(sessions, 'new');
      expect(made).toBeInstanceOf(McpSession);
      expect(idle.closed).toBe(true);
      expect(busy.closed).toBe(false);
    } finally {
      jest.useRealTimers();
    }
  });

  it('finds a session for its own principal only', () => {
    const sessions = live({});
    const session = new McpSession('p');
    session.principal = 'alice';
    sessions.add(session);
    expect(sessions.find('p', 'alice')).toBe(session);
    expect(sessions.find('p', 'bob')).toBeUndefined();
    expect(sessions.find('p', undefined)).toBeUndefined();
  });

  it('adopts a session another instance made, from its record in the store', async () => {
    const store = new InMemorySessionStore({});
    const elsewhere = live({ store });
    const here = live({ store });
    const session = new McpSession('shared');
    session.revision = '2025-11-25';
    session.initialized = true;
    elsewhere.add(session);
    await new Promise((resolve) => setImmediate(resolve)); // the record is written in the background
    const adopted = await here.find('shared', undefined);
    expect(adopted).toBeInstanceOf(McpSession);
    expect(adopted).not.toBe(session);
    expect(adopted?.revision).toBe('2025-11-25');
    expect(here.find('shared', undefined)).toBe(adopted); // live here now: found without awaiting
  });

  it('ends a session idle here without deleting its record: another instance may still be serving it', async () => {
    const store = new InMemorySessionStore({});
    const sessions = live({ store, idleMs: 20 });
    const session = new McpSession('quiet');
    session.revision = '2025-11-25';
    sessions.add(session);
    for (let i = 0; i < 100 && !session.closed; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(session.closed).toBe(true);
    expect(sessions.peek('quiet')).toBeUndefined();
    expect(await store.get('quiet')).toMatchObject({ id: 'quiet', revision: '2025-11-25' });
  });

  it('tells the onEnded listeners of a session ended for good once its record is gone, and not of one only closed here', async () => {
    const store = new InMemorySessionStore({});
    const sessions = live({ store });
    const ended: Array<{ id: string; recordLeft: boolean }> = [];
    sessions.onEnded((session) => {
      // Asked from within the listener: the record must be gone by then.
      void store.get(session.id).then((record) => ended.push({ id: session.id, recordLeft: record !== undefined }));
    });
    for (const id of ['closed', 'shut', 'deleted']) sessions.add(new McpSession(id));
    await settled();
    sessions.peek('closed')!.close(); // idle here, say
    sessions.closeLocal('shut');
    sessions.delete('deleted');
    await settled();
    expect(ended).toEqual([{ id: 'deleted', recordLeft: false }]);
    expect(await store.get('closed')).toBeDefined();
    expect(await store.get('shut')).toBeDefined();
  });

  it('tells the onChanged listeners of a change once the store has it', async () => {
    const store = new InMemorySessionStore({});
    const sessions = live({ store });
    const session = new McpSession('c');
    sessions.add(session);
    await settled();
    const seen: Array<string | undefined> = [];
    sessions.onChanged(({ id }) => void store.get(id).then((record) => seen.push(record?.logLevel)));
    session.logLevel = 'warning';
    sessions.save(session, { logLevel: 'warning' });
    await settled();
    expect(seen).toEqual(['warning']);
  });

  it('reloads a live copy from its record (changed elsewhere), and closes it once the record is gone', async () => {
    const store = new InMemorySessionStore({});
    const [elsewhere, here] = [live({ store }), live({ store })];
    const session = new McpSession('shared');
    session.revision = '2025-11-25';
    elsewhere.add(session);
    await settled();
    const copy = (await here.find('shared', undefined))!;
    session.subscriptions.add('memo://1');
    elsewhere.save(session, { subscriptions: ['memo://1'], logLevel: 'error' });
    await settled();
    expect(copy.subscribedTo('memo://1')).toBe(false);
    await here.reload('shared');
    expect(copy.subscribedTo('memo://1')).toBe(true);
    expect(copy.logLevel).toBe('error');

    elsewhere.delete('shared');
    await settled();
    await here.reload('shared');
    expect(copy.closed).toBe(true);
    expect(here.peek('shared')).toBeUndefined();
  });

  it("resolves add with why a session's record was not kept: refused by the store, or the store failing", async () => {
    const full = live({ store: new InMemorySessionStore({ maxSessions: 1 }) });
    expect(await full.add(new McpSession('one'))).toEqual({ ok: true });
    expect(await full.add(new McpSession('two'))).toEqual({ ok: false, reason: 'full' });
    const store = flaky();
    store.down = true;
    const sessions = live({ store });
    const session = new McpSession('lost');
    expect(await sessions.add(session)).toEqual({ ok: false, reason: 'unavailable' });
    expect(sessions.peek('lost')).toBe(session); // kept live: the caller decides (HTTP refuses it, stdio keeps it)
    expect(sessions.closeLocal('lost')).toBe(true);
    expect(session.closed).toBe(true);
  });

  it('rejects a lookup of a session not live here with a StoreUnavailableError while the store fails', async () => {
    const store = flaky();
    const sessions = live({ store });
    const held = new McpSession('held');
    sessions.add(held);
    await settled();
    store.down = true;
    expect(sessions.find('held', undefined)).toBe(held); // live here: no store call
    await expect(sessions.find('elsewhere', undefined)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('deletes the record of a session ended for good', async () => {
    const store = new InMemorySessionStore({});
    const sessions = live({ store, maxSessions: 1 });
    sessions.add(new McpSession('first'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await store.get('first')).toBeDefined();
    sessions.delete('first');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await store.get('first')).toBeUndefined();
  });
});

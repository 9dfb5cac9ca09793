import { InMemorySessionStore } from './in-memory-session.store';
import { LiveSessions, SessionTicket } from './live-sessions';
import { McpSession } from './mcp-session';

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

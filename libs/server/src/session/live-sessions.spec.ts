import { InMemorySessionStore } from './in-memory-session.store';
import { LiveSessions } from './live-sessions';
import { McpSession } from './mcp-session';

describe('LiveSessions', () => {
  const made: LiveSessions[] = [];
  const live = (options: ConstructorParameters<typeof LiveSessions>[0]) => {
    const sessions = new LiveSessions(options);
    made.push(sessions);
    return sessions;
  };
  afterEach(() => made.splice(0).forEach((sessions) => sessions.clear()));

  it('ends the least recently used session to make room, counting every lookup as a use', () => {
    const sessions = live({ maxSessions: 2 });
    const [a, b, c] = ['a', 'b', 'c'].map((id) => new McpSession(id));
    sessions.add(a);
    sessions.add(b);
    expect(sessions.get('a')).toBe(a); // a is now the most recent: b goes first
    sessions.add(c);
    expect(b.closed).toBe(true);
    expect(sessions.peek('b')).toBeUndefined();
    expect([a.closed, c.closed]).toEqual([false, false]);
  });

  it('keeps the order right when the same session is looked up again and again, and after the newest one ends', () => {
    const sessions = live({ maxSessions: 3 });
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((id) => new McpSession(id));
    sessions.add(a);
    sessions.add(b);
    sessions.add(c);
    sessions.get('b');
    sessions.get('b');
    sessions.get('a'); // order now c, b, a
    c.close(); // ending a session removes it
    expect(sessions.size).toBe(2);
    sessions.add(d); // b, a, d
    sessions.get('b'); // a, d, b
    sessions.add(e); // a goes
    expect(a.closed).toBe(true);
    expect([b.closed, d.closed, e.closed]).toEqual([false, false, false]);
    sessions.delete('e'); // the newest ends: the next lookups still reorder
    sessions.get('d'); // b, d
    sessions.add(new McpSession('f')); // b, d, f
    sessions.add(new McpSession('g')); // b goes
    expect(b.closed).toBe(true);
    expect(d.closed).toBe(false);
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

  it('deletes the record of a session ended for good, and of one evicted to make room', async () => {
    const store = new InMemorySessionStore({});
    const sessions = live({ store, maxSessions: 1 });
    sessions.add(new McpSession('first'));
    sessions.add(new McpSession('second')); // evicts the first
    sessions.delete('second');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await store.get('first')).toBeUndefined();
    expect(await store.get('second')).toBeUndefined();
  });
});

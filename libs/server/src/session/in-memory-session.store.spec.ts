import { sessionStoreContract } from '../contracts/session-store.contract';
import { InMemorySessionStore } from './in-memory-session.store';

sessionStoreContract([['InMemorySessionStore', ({ maxSessions }) => new InMemorySessionStore({ maxSessions })]]);

describe('InMemorySessionStore bounds', () => {
  const record = (id: string, pad = '') => ({
    id,
    revision: undefined,
    clientInfo: { name: pad, version: '1' },
    clientCapabilities: {},
    logLevel: undefined,
    subscriptions: [],
    initialized: false,
    createdAt: 0,
  });

  it('refuses a record that would pass the byte bound', async () => {
    const store = new InMemorySessionStore({ maxBytes: 1_000 });
    expect(await store.create(record('a', 'x'.repeat(500)))).toEqual({ ok: true });
    expect(await store.create(record('b', 'x'.repeat(500)))).toEqual({ ok: false, reason: 'full' });
    expect(await store.update('a', { subscriptions: ['y'.repeat(600)] })).toBe(false);
  });

  it('expires a record left idle, and makes room with it', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const store = new InMemorySessionStore({ maxSessions: 1, idleMs: 1_000 });
      await store.create(record('a'));
      jest.setSystemTime(1_000_500);
      await store.touch('a');
      jest.setSystemTime(1_001_200);
      expect(await store.get('a')).toBeDefined(); // touched 700 ms ago
      jest.setSystemTime(1_002_300);
      expect(await store.create(record('b'))).toEqual({ ok: true });
      expect(await store.get('a')).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });
});

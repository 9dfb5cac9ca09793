/// <reference types="jest" />
// A Jest suite to run in a spec: it uses the Jest globals of the run that imports it.
import { SessionStore } from '../session/session.store';
import { SessionRecord } from '../session/session-record';

/** An implementation under test: its name, and a factory of a fresh, empty store with at most `maxSessions`. */
export type SessionStoreCase = [
  name: string,
  make: (bounds: { maxSessions: number }) => SessionStore | Promise<SessionStore>,
];

function record(id: string, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    revision: '2025-11-25',
    clientInfo: { name: 'contract', version: '1' },
    clientCapabilities: { sampling: {} },
    logLevel: undefined,
    subscriptions: [],
    initialized: false,
    createdAt: 1_700_000_000_000,
    ...extra,
  };
}

/**
 * The contract every {@link SessionStore} meets, as a Jest suite: run it in a spec of your own over your
 * implementation(s). Each case's factory returns a fresh, empty store (use a key prefix per run for shared stores).
 *
 * @example
 * sessionStoreContract([['RedisSessionStore', ({ maxSessions }) => new RedisSessionStore(redis, { prefix, maxSessions })]]);
 */
export function sessionStoreContract(cases: SessionStoreCase[]): void {
  describe.each(cases)('SessionStore contract: %s', (_name, make) => {
    let store: SessionStore;

    beforeEach(async () => {
      store = await make({ maxSessions: 3 });
    });

    it('creates a record and reads back an equal one', async () => {
      const created = record('a', { subscriptions: ['file:///x'], principal: 'alice' });
      expect(await store.create(created)).toEqual({ ok: true });
      expect(await store.get('a')).toEqual(created);
      expect(await store.count()).toBe(1);
    });

    it('refuses a second record with the same id, keeping the first', async () => {
      await store.create(record('a', { logLevel: 'info' }));
      expect(await store.create(record('a', { logLevel: 'error' }))).toEqual({ ok: false, reason: 'exists' });
      expect((await store.get('a'))?.logLevel).toBe('info');
    });

    it('hands out copies: changing a returned record changes nothing stored', async () => {
      await store.create(record('a'));
      const read = (await store.get('a'))!;
      read.subscriptions.push('file:///changed');
      read.initialized = true;
      expect(await store.get('a')).toEqual(record('a'));
    });

    it('updates the fields given and keeps the others, the id and the creation time', async () => {
      await store.create(record('a'));
      expect(await store.update('a', { initialized: true, logLevel: 'warning', subscriptions: ['u:1'] })).toBe(true);
      expect(await store.get('a')).toEqual(
        record('a', { initialized: true, logLevel: 'warning', subscriptions: ['u:1'] }),
      );
    });

    it('answers false or nothing for a record it does not have', async () => {
      expect(await store.get('missing')).toBeUndefined();
      expect(await store.update('missing', { initialized: true })).toBe(false);
      expect(await store.delete('missing')).toBe(false);
      await expect(store.touch('missing')).resolves.toBeUndefined();
      expect(await store.get('missing')).toBeUndefined();
    });

    it('deletes a record', async () => {
      await store.create(record('a'));
      await store.create(record('b'));
      expect(await store.delete('a')).toBe(true);
      expect(await store.get('a')).toBeUndefined();
      expect(await store.get('b')).toEqual(record('b'));
      expect(await store.count()).toBe(1);
    });

    it('when full, refuses a new record and never evicts a kept one', async () => {
      for (const id of ['a', 'b', 'c']) expect(await store.create(record(id))).toEqual({ ok: true });
      expect(await store.create(record('d'))).toEqual({ ok: false, reason: 'full' });
      for (const id of ['a', 'b', 'c']) expect(await store.get(id)).toEqual(record(id));
      await store.delete('b');
      expect(await store.create(record('d'))).toEqual({ ok: true });
    });
  });
}

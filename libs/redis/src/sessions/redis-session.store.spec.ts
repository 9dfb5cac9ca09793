import { createServer } from 'node:net';
import type { SessionRecord } from '@conduit-mcp/server';
import { sessionStoreContract } from '@conduit-mcp/server/contracts';
import { Redis } from 'ioredis';
import { deleteKeys, keysUnder, testPrefix, testRedis } from '../redis-test.fixtures-spec';
import { RedisSessionStore, RedisSessionStoreOptions } from './redis-session.store';

const redis = testRedis();
const prefixes: string[] = [];
const connections: Redis[] = [redis];

function freshPrefix(): string {
  const prefix = testPrefix('sessions');
  prefixes.push(prefix);
  return prefix;
}

function storeWith(bounds: Omit<RedisSessionStoreOptions, 'prefix'> = {}, prefix = freshPrefix()): RedisSessionStore {
  return new RedisSessionStore(redis, { prefix, ...bounds });
}

function record(id: string, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    revision: '2025-06-18',
    clientInfo: { name: 'spec', version: '1' },
    clientCapabilities: {},
    logLevel: undefined,
    subscriptions: [],
    initialized: false,
    createdAt: 1_700_000_000_000,
    ...extra,
  };
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `done` every 25 ms until it holds; fails after `withinMs`. */
async function eventually(done: () => Promise<boolean>, withinMs = 3_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${withinMs} ms`);
    await pause(25);
  }
}

afterAll(async () => {
  for (const prefix of prefixes) await deleteKeys(redis, prefix);
  await Promise.all(connections.map((connection) => connection.quit()));
});

sessionStoreContract([['RedisSessionStore', ({ maxSessions }) => storeWith({ maxSessions })]]);

describe('RedisSessionStore records', () => {
  it('reads back what JSON would give: fields set to undefined are absent', async () => {
    const store = storeWith();
    const created = record('a', {
      principal: 'alice',
      transport: 'streamable-http',
      clientInfo: { name: 'é€😀', version: '2' },
    });
    expect(await store.create(created)).toEqual({ ok: true });
    expect(await store.get('a')).toStrictEqual(JSON.parse(JSON.stringify(created)));
  });

  it('updates only the fields given: a field changed elsewhere meanwhile is kept, one set to undefined removed', async () => {
    const prefix = freshPrefix();
    const store = storeWith({}, prefix);
    await store.create(record('a', { logLevel: 'info' }));
    await redis.hset(`${prefix}session:a`, 'initialized', 'true'); // another instance's write, not seen by this update
    expect(await store.update('a', { logLevel: undefined, subscriptions: ['u:1'] })).toBe(true);
    const read = await store.get('a');
    expect(read).toStrictEqual(JSON.parse(JSON.stringify(record('a', { initialized: true, subscriptions: ['u:1'] }))));
    expect(read && 'logLevel' in read).toBe(false);
  });

  it('never changes the id through update', async () => {
    const store = storeWith();
    await store.create(record('a'));
    expect(await store.update('a', { id: 'b', initialized: true } as never)).toBe(true);
    expect(await store.get('a')).toEqual(record('a', { initialized: true }));
    expect(await store.get('b')).toBeUndefined();
  });

  it('keeps records whose ids look like its own bookkeeping keys apart from them', async () => {
    const store = storeWith();
    for (const id of ['index', 'sizes', 'bytes', 'principal:x'])
      expect(await store.create(record(id))).toEqual({ ok: true });
    for (const id of ['index', 'sizes', 'bytes', 'principal:x']) expect(await store.get(id)).toEqual(record(id));
    expect(await store.count()).toBe(4);
  });

  it('lets two instances on one prefix share records and bounds', async () => {
    const prefix = freshPrefix();
    const other = testRedis();
    connections.push(other);
    const a = new RedisSessionStore(redis, { prefix, maxSessions: 2 });
    const b = new RedisSessionStore(other, { prefix, maxSessions: 2 });
    await a.create(record('one'));
    expect(await b.get('one')).toEqual(record('one'));
    expect(await b.update('one', { initialized: true })).toBe(true);
    expect((await a.get('one'))?.initialized).toBe(true);
    expect(await b.create(record('two'))).toEqual({ ok: true });
    expect(await a.create(record('three'))).toEqual({ ok: false, reason: 'full' });
    expect(await b.create(record('one'))).toEqual({ ok: false, reason: 'exists' });
    expect(await a.delete('one')).toBe(true);
    expect(await b.get('one')).toBeUndefined();
    expect(await b.delete('one')).toBe(false);
    expect(await b.count()).toBe(1);
  });

  it('lets exactly one of 20 concurrent creates of one id through', async () => {
    const store = storeWith();
    const levels = ['debug', 'info', 'notice', 'warning', 'error'] as const;
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.create(record('same', { createdAt: i, logLevel: levels[i % 5] }))),
    );
    const winners = outcomes.flatMap((outcome, i) => (outcome.ok ? [i] : []));
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual(Array(19).fill({ ok: false, reason: 'exists' }));
    expect(await store.get('same')).toEqual(
      record('same', { createdAt: winners[0], logLevel: levels[winners[0] % 5] }),
    );
    expect(await store.count()).toBe(1);
  });

  it('admits exactly maxSessions of 20 concurrent creates', async () => {
    const store = storeWith({ maxSessions: 5 });
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => store.create(record(`s${i}`))));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(5);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual(Array(15).fill({ ok: false, reason: 'full' }));
    expect(await store.count()).toBe(5);
  });
});

describe('RedisSessionStore idle expiry', () => {
  it('expires a record left idle (reading it does not restart its clock), and count drops', async () => {
    const store = storeWith({ idleMs: 200 });
    await store.create(record('a'));
    const started = Date.now();
    expect(await store.get('a')).toEqual(record('a'));
    expect(await store.count()).toBe(1);
    await eventually(async () => (await store.get('a')) === undefined);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await store.count()).toBe(0);
  });

  it('keeps a touched record alive past its idle time while an untouched one expires', async () => {
    const store = storeWith({ idleMs: 300 });
    await store.create(record('kept'));
    await store.create(record('left'));
    const started = Date.now();
    await eventually(async () => {
      await store.touch('kept');
      return (await store.get('left')) === undefined;
    });
    await store.touch('kept');
    await pause(150); // past 'kept's first idle time (300 ms from its creation), within the one touch just restarted
    expect(Date.now() - started).toBeGreaterThan(300);
    expect(await store.get('kept')).toEqual(record('kept'));
    expect(await store.count()).toBe(1);
  });

  it('restarts the idle clock on update', async () => {
    const store = storeWith({ idleMs: 500 });
    await store.create(record('a'));
    await pause(300);
    expect(await store.update('a', { initialized: true })).toBe(true);
    await pause(300); // past the idle time since creation, within it since the update
    expect((await store.get('a'))?.initialized).toBe(true);
  });

  it('makes room with an expired record: its slot and its bytes are given back', async () => {
    const bytes = jsonBytes(record('a'));
    const store = storeWith({ maxSessions: 1, maxBytes: bytes, idleMs: 200 });
    expect(await store.create(record('a'))).toEqual({ ok: true });
    expect(await store.create(record('b'))).toEqual({ ok: false, reason: 'full' });
    await eventually(async () => (await store.create(record('b'))).ok);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toEqual(record('b'));
  });

  it('lets a record expire with a touch for an id it does not have, and counts none', async () => {
    const store = storeWith({ idleMs: 200 });
    await store.touch('missing');
    expect(await store.get('missing')).toBeUndefined();
    expect(await store.count()).toBe(0);
  });
});

describe('RedisSessionStore bounds', () => {
  const padded = (id: string, pad: string) => record(id, { clientInfo: { name: pad, version: '1' } });

  it('refuses a record that would pass the byte bound, and growth past it; shrinking and deleting give room', async () => {
    const store = storeWith({ maxBytes: 1_000 });
    expect(await store.create(padded('a', 'x'.repeat(500)))).toEqual({ ok: true });
    expect(await store.create(padded('b', 'x'.repeat(500)))).toEqual({ ok: false, reason: 'full' });
    expect(await store.update('a', { subscriptions: ['y'.repeat(600)] })).toBe(false);
    expect((await store.get('a'))?.subscriptions).toEqual([]);
    expect(await store.update('a', { clientInfo: { name: 'short', version: '1' } })).toBe(true);
    expect(await store.create(padded('b', 'x'.repeat(500)))).toEqual({ ok: true });
    expect(await store.create(padded('c', 'x'.repeat(150)))).toEqual({ ok: false, reason: 'full' });
    expect(await store.delete('a')).toBe(true);
    expect(await store.create(padded('c', 'x'.repeat(150)))).toEqual({ ok: true });
  });

  it("measures a record as its JSON's UTF-8 bytes, against maxRecordBytes", async () => {
    const wide = padded('a', 'é€😀'.repeat(50));
    const size = jsonBytes(wide);
    const small = storeWith({ maxRecordBytes: size - 1 });
    expect(await small.create(wide)).toEqual({ ok: false, reason: 'full' });
    await small.create(record('a'));
    expect(await small.create(wide)).toEqual({ ok: false, reason: 'exists' }); // the id is checked first
    const store = storeWith({ maxRecordBytes: size });
    expect(await store.create(wide)).toEqual({ ok: true });
    expect(await store.update('a', { clientInfo: { name: `${'é€😀'.repeat(50)}!`, version: '1' } })).toBe(false);
    expect(await store.get('a')).toEqual(wide);
    // 9 bytes shorter ('é€😀' is 2 + 3 + 4 bytes); then 9 bytes longer ([] becomes ["1234567"]): at the bound again
    expect(await store.update('a', { clientInfo: { name: 'é€😀'.repeat(49), version: '1' } })).toBe(true);
    expect(await store.update('a', { subscriptions: ['1234567'] })).toBe(true);
    expect(await store.update('a', { subscriptions: ['12345678'] })).toBe(false);
  });

  it('caps the records of one principal; records of others and without one are not counted; delete frees a slot', async () => {
    const store = storeWith({ maxSessionsPerPrincipal: 2 });
    expect(await store.create(record('a1', { principal: 'alice' }))).toEqual({ ok: true });
    expect(await store.create(record('a2', { principal: 'alice' }))).toEqual({ ok: true });
    expect(await store.create(record('a3', { principal: 'alice' }))).toEqual({ ok: false, reason: 'full' });
    expect(await store.create(record('b1', { principal: 'bob' }))).toEqual({ ok: true });
    for (const id of ['n1', 'n2', 'n3']) expect(await store.create(record(id))).toEqual({ ok: true });
    expect(await store.update('b1', { principal: 'alice' })).toBe(false);
    expect((await store.get('b1'))?.principal).toBe('bob');
    expect(await store.delete('a1')).toBe(true);
    expect(await store.create(record('a3', { principal: 'alice' }))).toEqual({ ok: true });
  });

  it("frees an expired record's principal slot", async () => {
    const store = storeWith({ maxSessionsPerPrincipal: 1, idleMs: 200 });
    expect(await store.create(record('a1', { principal: 'alice' }))).toEqual({ ok: true });
    expect(await store.create(record('a2', { principal: 'alice' }))).toEqual({ ok: false, reason: 'full' });
    await eventually(async () => (await store.create(record('a2', { principal: 'alice' }))).ok);
  });
});

describe('RedisSessionStore keys', () => {
  it('gives every key it writes a TTL, and leaves none once its records are deleted', async () => {
    const prefix = freshPrefix();
    const store = storeWith({}, prefix);
    await store.create(record('a', { principal: 'alice' }));
    await store.create(record('b'));
    await store.update('a', { initialized: true });
    await store.touch('b');
    const keys = await keysUnder(redis, prefix);
    expect(keys).toEqual(
      ['session:a', 'session:b', 'sessions:bytes', 'sessions:index', 'sessions:principal:alice', 'sessions:sizes'].map(
        (key) => prefix + key,
      ),
    );
    for (const key of keys) expect(await redis.pttl(key)).toBeGreaterThan(0);
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('b')).toBe(true);
    expect(await keysUnder(redis, prefix)).toEqual([]);
  });
});

describe('RedisSessionStore input and failures', () => {
  it('refuses malformed options, naming the option', () => {
    expect(() => new RedisSessionStore(redis, { prefix: '' })).toThrow(/prefix/);
    expect(() => new RedisSessionStore(redis, undefined as never)).toThrow(/prefix/);
    for (const name of ['maxSessions', 'maxBytes', 'maxRecordBytes', 'idleMs', 'maxSessionsPerPrincipal'])
      for (const bad of [0, -1, 1.5, Number.NaN, Infinity])
        expect(() => new RedisSessionStore(redis, { prefix: 'p:', [name]: bad })).toThrow(
          new RegExp(`${name} must be a positive integer`),
        );
    expect(() => new RedisSessionStore({} as Redis, { prefix: 'p:' })).toThrow(/ioredis client/);
  });

  it('refuses a malformed record or changes with a clear error', async () => {
    const store = storeWith();
    await expect(store.create(record(''))).rejects.toThrow(/session id must have 1 to 256 characters/);
    await expect(store.create(record('x'.repeat(257)))).rejects.toThrow(/session id/);
    await expect(store.create(record('a', { principal: 5 as never }))).rejects.toThrow(/principal must be a string/);
    await expect(store.create(null as never)).rejects.toThrow(/session record/);
    await expect(store.update('a', null as never)).rejects.toThrow(/changes as an object/);
    await expect(store.get(5 as never)).rejects.toThrow(/must be a string/);
  });

  it('answers absent for an id no record could have', async () => {
    const store = storeWith();
    const long = 'x'.repeat(257);
    expect(await store.get(long)).toBeUndefined();
    expect(await store.get('')).toBeUndefined();
    expect(await store.update(long, { initialized: true })).toBe(false);
    expect(await store.delete(long)).toBe(false);
    await expect(store.touch(long)).resolves.toBeUndefined();
  });

  it('reports health: up over a live connection', async () => {
    expect(await storeWith().health()).toMatchObject({ up: true, status: 'ready' });
  });

  it('rejects every operation at once when Redis is unreachable, and reports it down', async () => {
    const port = await closedPort();
    const down = new Redis({
      host: '127.0.0.1',
      port,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 500,
      commandTimeout: 500,
    });
    down.on('error', () => undefined); // the refused connection is expected
    try {
      const store = new RedisSessionStore(down, { prefix: freshPrefix() });
      const started = Date.now();
      await expect(store.create(record('a'))).rejects.toThrow();
      await expect(store.get('a')).rejects.toThrow();
      await expect(store.update('a', { initialized: true })).rejects.toThrow();
      await expect(store.touch('a')).rejects.toThrow();
      await expect(store.delete('a')).rejects.toThrow();
      await expect(store.count()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await store.health()).toMatchObject({ up: false });
    } finally {
      down.disconnect();
    }
  });
});

/** A port on 127.0.0.1 nothing listens on (just opened and closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

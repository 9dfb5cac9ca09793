import { createServer } from 'node:net';
import { JsonRpcMessage } from '@conduit-mcp/core';
import { StoredEvent } from '@conduit-mcp/server';
import { eventStoreContract } from '@conduit-mcp/server/contracts';
import { Redis } from 'ioredis';
import { deleteKeys, keysUnder, testPrefix, testRedis } from '../redis-test.fixtures-spec';
import { RedisEventStore, RedisEventStoreOptions } from './redis-event.store';

const redis = testRedis();
const prefixes: string[] = [];
const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });
// A reply whose JSON is exactly `bytes` long (ASCII).
const sized = (n: number, bytes: number): JsonRpcMessage => {
  const bare = JSON.stringify({ jsonrpc: '2.0', id: n, result: { text: '' } }).length;
  return { jsonrpc: '2.0', id: n, result: { text: 'x'.repeat(bytes - bare) } };
};

function freshPrefix(label: string): string {
  const prefix = testPrefix(label);
  prefixes.push(prefix);
  return prefix;
}

function makeStore(options: Partial<RedisEventStoreOptions> = {}, client: Redis = redis): RedisEventStore {
  return new RedisEventStore(client, { prefix: freshPrefix('events'), ...options });
}

// Polls until `check` holds, at most `timeoutMs`; for what Redis does on its own clock (expiry).
async function eventually(check: () => Promise<boolean>, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

afterAll(async () => {
  for (const prefix of prefixes) await deleteKeys(redis, prefix);
  await redis.quit();
});

eventStoreContract([['RedisEventStore', (bounds) => makeStore(bounds)]]);

describe('RedisEventStore', () => {
  it('refuses malformed options and clients with a message naming the problem', () => {
    expect(() => new RedisEventStore(redis, { prefix: '' })).toThrow(/prefix/);
    expect(() => new RedisEventStore(redis, { prefix: 'p:', maxEventsPerStream: 0 })).toThrow(/maxEventsPerStream/);
    expect(() => new RedisEventStore(redis, { prefix: 'p:', ttlMs: 1.5 })).toThrow(/ttlMs/);
    expect(() => new RedisEventStore(redis, { prefix: 'p:', maxBytes: -1 })).toThrow(/maxBytes/);
    expect(() => new RedisEventStore({} as Redis, { prefix: 'p:' })).toThrow(/ioredis client/);
    const prefixed = new Redis({ lazyConnect: true, keyPrefix: 'x:' });
    expect(() => new RedisEventStore(prefixed, { prefix: 'p:' })).toThrow(/keyPrefix/);
    prefixed.disconnect();
  });

  it('rejects session and stream ids that could break the key scheme', async () => {
    const store = makeStore();
    await expect(store.append('', 'a', note(1))).rejects.toThrow(/sessionId/);
    await expect(store.append('s', 'a b', note(1))).rejects.toThrow(/streamId/);
    await expect(store.append('s'.repeat(129), 'a', note(1))).rejects.toThrow(/sessionId/);
    await expect(store.end('s', '')).rejects.toThrow(/streamId/);
    await expect(store.deleteSession('s\n')).rejects.toThrow(/sessionId/);
  });

  it('keeps ids with colons, percent signs and reserved words apart', async () => {
    const store = makeStore();
    // Unescaped, the stream `x` of session `meta` would be the index of session `x`, and `a:b`/`c` would be `a`/`b:c`.
    const pairs: Array<[string, string]> = [
      ['meta', 'x'],
      ['x', 'y'],
      ['a:b', 'c'],
      ['a', 'b:c'],
      ['%3A', 'd'],
      [':', 'd'],
    ];
    const ids = [];
    for (const [session, stream] of pairs) {
      ids.push(await store.append(session, stream));
      await store.append(session, stream, note(ids.length));
    }
    for (const [n, [session, stream]] of pairs.entries()) {
      expect(await store.replayAfter(session, ids[n])).toEqual({
        streamId: stream,
        events: [{ id: expect.stringMatching(/^.+:\d+-\d+$/), message: note(n + 1) }],
        ended: false,
      });
    }
  });

  it('answers malformed, unknown and foreign event ids with undefined', async () => {
    const store = makeStore();
    const id = await store.append('s1', 'a', note(1));
    await store.append('s1', 'a', note(2));
    const entry = id.slice(2);
    for (const bad of [
      'x'.repeat(10_000),
      `a:${'1'.repeat(200)}-0`,
      'no-colon',
      ':1-0',
      'a:',
      'a:1',
      'a:01-0',
      'a:x-1',
      'a:18446744073709551616-0',
      'a:18446744073709551615-18446744073709551615',
      `b:${entry}`,
    ])
      expect(await store.replayAfter('s1', bad)).toBeUndefined();
    expect(await store.replayAfter('s2', id)).toBeUndefined();
    expect(await store.replayAfter('s1', id)).toBeDefined();
  });

  it('expires a stream not written for ttlMs, and corrects its counts on a later write', async () => {
    const prefix = freshPrefix('events-ttl');
    const store = new RedisEventStore(redis, { prefix, ttlMs: 150 });
    const old = await store.append('s', 'a', sized(1, 100));
    expect(await store.stats()).toEqual({ streams: 1, bytes: 100 });
    await eventually(async () => (await store.replayAfter('s', old)) === undefined);
    const recent = await store.append('s', 'b', sized(2, 60));
    expect(await store.replayAfter('s', recent)).toBeDefined();
    expect(await store.stats()).toEqual({ streams: 1, bytes: 60 });
    expect(await redis.hget(`${prefix}events:bytes`, 's')).toBe('60');
    // Nothing written for ttlMs: every key of the store is gone, its counters too.
    await eventually(async () => (await keysUnder(redis, prefix)).length === 0);
  });

  it('a stream written again after it expired resumes none of its old ids', async () => {
    const store = makeStore({ ttlMs: 150 });
    const first = await store.append('s', 'a', note(1));
    await eventually(async () => (await store.replayAfter('s', first)) === undefined);
    const again = await store.append('s', 'a', note(2));
    expect(await store.replayAfter('s', first)).toBeUndefined();
    expect(await store.replayAfter('s', again)).toEqual({ streamId: 'a', events: [], ended: false });
  });

  it('a stream written again right after it was dropped resumes none of its old ids', async () => {
    const store = makeStore({ maxStreams: 1 });
    for (let round = 0; round < 20; round++) {
      // Sent together, the three run within a millisecond or so: a new Redis stream would start its ids where the
      // dropped one was.
      const [old, , again] = await Promise.all([
        store.append('s', 'a', note(1)),
        store.append('s', 'b', note(2)),
        store.append('s', 'a', note(3)),
      ]);
      expect(await store.replayAfter('s', old)).toBeUndefined();
      expect((await store.replayAfter('s', again))?.events).toEqual([]);
    }
  });

  it('keeps at most maxBytesPerSession per session, dropping its least recently written streams', async () => {
    const store = makeStore({ maxBytesPerStream: 1_000, maxBytesPerSession: 1_000 });
    const a = await store.append('s1', 'a');
    await store.append('s1', 'a', sized(1, 400));
    const b = await store.append('s1', 'b');
    await store.append('s1', 'b', sized(2, 400));
    const other = await store.append('s2', 'c');
    await store.append('s2', 'c', sized(3, 800));
    // b crosses the session's budget, a (written before it) goes; s2 is not touched.
    await store.append('s1', 'a', sized(4, 100));
    await store.append('s1', 'b', sized(5, 400));
    expect(await store.replayAfter('s1', a)).toBeUndefined();
    expect((await store.replayAfter('s1', b))?.events).toHaveLength(2);
    expect((await store.replayAfter('s2', other))?.events).toHaveLength(1);
    expect(await store.stats()).toEqual({ streams: 2, bytes: 1_600 });
  });

  it('keeps at most maxStreams streams, dropping the least recently written', async () => {
    const store = makeStore({ maxStreams: 2 });
    const a = await store.append('s', 'a', note(1));
    const b = await store.append('s', 'b', note(1));
    await store.append('s', 'a', note(2));
    const c = await store.append('t', 'c', note(1));
    expect((await store.stats()).streams).toBe(2);
    expect(await store.replayAfter('s', b)).toBeUndefined();
    expect(await store.replayAfter('s', a)).toBeDefined();
    expect(await store.replayAfter('t', c)).toBeDefined();
  });

  it('answers undefined rather than part of a stream that holds more than its bounds allow', async () => {
    const prefix = freshPrefix('events-bounds');
    const roomy = new RedisEventStore(redis, { prefix, maxEventsPerStream: 10 });
    const strict = new RedisEventStore(redis, { prefix, maxEventsPerStream: 3 });
    const primed = await roomy.append('s', 'a');
    for (let n = 0; n < 5; n++) await roomy.append('s', 'a', note(n));
    expect((await roomy.replayAfter('s', primed))?.events).toHaveLength(5);
    expect(await strict.replayAfter('s', primed)).toBeUndefined();
  });

  it('counts bytes as UTF-8, as Redis holds them', async () => {
    const store = makeStore({ maxBytesPerStream: 1_000 });
    const primed = await store.append('s', 'a');
    // 300 characters, 900 bytes: two do not fit.
    const wide: JsonRpcMessage = { jsonrpc: '2.0', method: 'n', params: { text: '€'.repeat(300) } };
    await store.append('s', 'a', wide);
    const second = await store.append('s', 'a', wide);
    expect(await store.replayAfter('s', primed)).toBeUndefined();
    expect(await store.stats()).toEqual({ streams: 1, bytes: Buffer.byteLength(JSON.stringify(wide)) });
    expect((await store.replayAfter('s', second))?.events).toEqual([]);
  });

  it('shares streams between two store objects on one prefix, as two instances do', async () => {
    const prefix = freshPrefix('events-shared');
    const other = testRedis();
    try {
      const one = new RedisEventStore(redis, { prefix });
      const two = new RedisEventStore(other, { prefix });
      const primed = await one.append('s', 'a');
      const first = await one.append('s', 'a', note(1));
      const second = await two.append('s', 'a', note(2));
      await two.end('s', 'a');
      expect(await two.replayAfter('s', primed)).toEqual({
        streamId: 'a',
        events: [
          { id: first, message: note(1) },
          { id: second, message: note(2) },
        ],
        ended: true,
      });
      expect((await one.replayAfter('s', first))?.events).toEqual([{ id: second, message: note(2) }]);
      expect(await one.stats()).toEqual(await two.stats());
    } finally {
      await other.quit();
    }
  });

  it('deleteSession leaves no key and no count of that session', async () => {
    const prefix = freshPrefix('events-delete');
    const store = new RedisEventStore(redis, { prefix });
    for (const stream of ['a', 'b', 'c']) await store.append('gone', stream, note(1));
    await store.end('gone', 'a');
    const kept = await store.append('kept', 'd', note(2));
    await store.deleteSession('gone');
    const keys = await keysUnder(redis, prefix);
    expect(keys.filter((key) => key.includes('gone'))).toEqual([]);
    expect((await redis.hkeys(`${prefix}events:bytes`)).filter((field) => field.includes('gone'))).toEqual([]);
    expect(await redis.zrange(`${prefix}events:index`, 0, '-1')).toEqual(['kept:d']);
    expect(await store.stats()).toEqual({ streams: 1, bytes: JSON.stringify(note(2)).length });
    expect(await store.replayAfter('kept', kept)).toBeDefined();
    await store.deleteSession('never-seen');
  });

  it('ends only a stream that exists', async () => {
    const prefix = freshPrefix('events-end');
    const store = new RedisEventStore(redis, { prefix });
    await store.end('s', 'nothing');
    expect(await keysUnder(redis, prefix)).toEqual([]);
  });

  it('reports health and rejects fast when Redis is unreachable', async () => {
    const store = makeStore();
    expect(await store.health()).toMatchObject({ up: true, status: 'ready' });
    const port = await freePort();
    const down = new Redis({
      port,
      host: '127.0.0.1',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 500,
      commandTimeout: 500,
    });
    down.on('error', () => undefined);
    try {
      const unreachable = new RedisEventStore(down, { prefix: freshPrefix('events-down') });
      const started = Date.now();
      await expect(unreachable.append('s', 'a', note(1))).rejects.toThrow();
      await expect(unreachable.replayAfter('s', 'a:1-0')).rejects.toThrow();
      await expect(unreachable.deleteSession('s')).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(await unreachable.health()).toMatchObject({ up: false });
    } finally {
      down.disconnect();
    }
  });
});

describe('RedisEventStore.follow', () => {
  const entryOf = (eventId: string): string => eventId.slice(eventId.lastIndexOf(':') + 1);

  async function take(events: AsyncGenerator<StoredEvent>, count: number): Promise<StoredEvent[]> {
    const taken: StoredEvent[] = [];
    while (taken.length < count) {
      const next = await events.next();
      if (next.done) break;
      taken.push(next.value);
    }
    return taken;
  }

  it('yields what was recorded, then what another instance appends, and returns once the stream ended', async () => {
    const prefix = freshPrefix('events-follow');
    const writer = new RedisEventStore(redis, { prefix });
    const reader = new RedisEventStore(redis, { prefix });
    const primed = await writer.append('s', 'a');
    const first = await writer.append('s', 'a', note(1));
    const events = reader.follow('s', 'a', entryOf(primed), undefined, 200);
    expect(await take(events, 1)).toEqual([{ id: first, message: note(1) }]);
    const pending = take(events, 2);
    const second = await writer.append('s', 'a', note(2));
    const third = await writer.append('s', 'a', note(3));
    expect(await pending).toEqual([
      { id: second, message: note(2) },
      { id: third, message: note(3) },
    ]);
    await writer.end('s', 'a');
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it('returns when its signal aborts while it waits', async () => {
    const store = makeStore();
    const primed = await store.append('s', 'a');
    const controller = new AbortController();
    const events = store.follow('s', 'a', entryOf(primed), controller.signal, 10_000);
    const next = events.next();
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
  });

  it('rejects rather than skip events: an unknown stream, or one trimmed past the cursor', async () => {
    const store = makeStore({ maxEventsPerStream: 2 });
    await expect(store.follow('s', 'none', '1-0').next()).rejects.toThrow(/cannot follow/);
    const primed = await store.append('s', 'a');
    for (let n = 0; n < 3; n++) await store.append('s', 'a', note(n));
    await expect(store.follow('s', 'a', entryOf(primed)).next()).rejects.toThrow(/cannot follow/);
    await expect(store.follow('s', 'a', 'nope').next()).rejects.toThrow(/afterEntryId/);
  });
});

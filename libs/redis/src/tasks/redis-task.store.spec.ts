import { AddressInfo, createServer } from 'node:net';
import type { TaskRecord } from '@conduit-mcp/server';
import { taskStoreContract } from '@conduit-mcp/server/contracts';
import { Redis } from 'ioredis';
import { deleteKeys, keysUnder, testPrefix, testRedis } from '../redis-test.fixtures-spec';
import { RedisTaskStore } from './redis-task.store';
import { RedisTaskStoreOptions } from './redis-task-store.options';

const redis = testRedis();
const other = testRedis();
const prefixes: string[] = [];

/** A fresh prefix, deleted after the run. */
function prefix(label: string): string {
  const made = testPrefix(`tasks-${label}`);
  prefixes.push(made);
  return made;
}

function store(options: Partial<RedisTaskStoreOptions> = {}, connection: Redis = redis): RedisTaskStore {
  return new RedisTaskStore(connection, { prefix: prefix('store'), ...options });
}

/** A working task of `owner`, kept `ttlMs` (long enough for any test unless told). */
function working(taskId: string, owner: string, ttlMs = 600_000): TaskRecord {
  const now = Date.now();
  return {
    taskId,
    owner,
    server: 's',
    method: 'tools/call',
    era: 'modern',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs,
    expiresAt: now + ttlMs,
  };
}

/** Resolves once the clock passed `at`. */
async function past(at: number): Promise<void> {
  while (Date.now() <= at) await new Promise((resolve) => setTimeout(resolve, Math.max(1, at + 1 - Date.now())));
}

afterAll(async () => {
  for (const made of prefixes) await deleteKeys(redis, made);
  await Promise.all([redis.quit(), other.quit()]);
});

taskStoreContract([
  [
    'RedisTaskStore',
    ({ maxTasksPerOwner }) => new RedisTaskStore(redis, { prefix: prefix('contract'), maxTasksPerOwner }),
  ],
]);

describe('RedisTaskStore expiry', () => {
  it('keeps a task until its expiresAt, then forgets it', async () => {
    const tasks = store();
    const task = working('t1', 'a', 150);
    expect(await tasks.create(task)).toBe(true);
    expect(await tasks.get('a', 't1')).toEqual(task);
    const deadline = Date.now() + 2_000;
    while ((await tasks.get('a', 't1')) !== undefined && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(Date.now()).toBeGreaterThanOrEqual(task.expiresAt);
    expect(await tasks.get('a', 't1')).toBeUndefined();
    expect(await tasks.update('a', 't1', { status: 'completed' })).toBeUndefined();
    expect(await tasks.cancel('a', 't1')).toBeUndefined();
  });

  it('gives back the room of expired tasks, in count and bytes, and leaves only its counters behind', async () => {
    const named = prefix('purge');
    const tasks = new RedisTaskStore(redis, { prefix: named, maxTasks: 2 });
    const short = [working('t1', 'a', 100), working('t2', 'b', 100)];
    for (const task of short) expect(await tasks.create(task)).toBe(true);
    expect(await tasks.create(working('t3', 'c'))).toBe(false);
    await past(Math.max(...short.map((task) => task.expiresAt)));
    expect(await tasks.create(working('t3', 'c'))).toBe(true);
    expect(await redis.zscore(`${named}task:owner:a`, 't1')).toBeNull();
    const t3 = Buffer.byteLength(JSON.stringify(await tasks.get('c', 't3')));
    expect(await redis.hgetall(`${named}task:index:totals`)).toEqual({ tasks: '1', bytes: String(t3) });
    expect(await keysUnder(redis, named)).toEqual(
      [
        'task:index:created',
        'task:index:entries',
        'task:index:expiry',
        'task:index:totals',
        'task:owner:c',
        'task:t3',
      ].map((key) => named + key),
    );
  });

  it('sets each key to expire, the task at its expiresAt and the owner list with its last task', async () => {
    const named = prefix('ttl');
    const tasks = new RedisTaskStore(redis, { prefix: named });
    const first = working('t1', 'a', 60_000);
    const last = working('t2', 'a', 120_000);
    await tasks.create(last);
    await tasks.create(first);
    expect(await redis.pexpiretime(`${named}task:t1`)).toBe(first.expiresAt);
    expect(await redis.pexpiretime(`${named}task:owner:a`)).toBe(last.expiresAt);
  });
});

describe('RedisTaskStore across instances', () => {
  it('shares tasks between two stores on one prefix, and a transition made by one is final for the other', async () => {
    const shared = prefix('shared');
    const a = new RedisTaskStore(redis, { prefix: shared });
    const b = new RedisTaskStore(other, { prefix: shared });
    const task = working('t1', 'alice');
    expect(await a.create(task)).toBe(true);
    expect(await b.get('alice', 't1')).toEqual(task);
    expect(await b.create(working('t1', 'alice'))).toBe(false);
    const done = await b.update('alice', 't1', { status: 'completed', result: { content: [] } });
    expect(done?.status).toBe('completed');
    expect(await a.update('alice', 't1', { status: 'working' })).toBeUndefined();
    expect(await a.cancel('alice', 't1')).toEqual(done);
    expect((await a.list('alice', undefined, 10))?.tasks).toEqual([done]);
  });

  it('lets exactly one of a concurrent completion and cancellation win', async () => {
    const shared = prefix('race');
    const a = new RedisTaskStore(redis, { prefix: shared });
    const b = new RedisTaskStore(other, { prefix: shared });
    for (let i = 0; i < 20; i++) {
      const id = `t${i}`;
      await a.create(working(id, 'alice'));
      // Each leaves first in turn, on its own connection: both orders of arrival get their turn.
      const complete = () => a.update('alice', id, { status: 'completed', result: { i } });
      const cancel = () => b.cancel('alice', id, 'user');
      const [completed, cancelled] =
        i % 2 === 0
          ? await Promise.all([complete(), cancel()])
          : await Promise.all([cancel(), complete()]).then(([x, y]) => [y, x] as const);
      const final = await a.get('alice', id);
      expect(cancelled).toEqual(final);
      if (completed) {
        expect(final).toEqual(completed);
        expect(final).toMatchObject({ status: 'completed', result: { i } });
      } else {
        expect(final).toMatchObject({ status: 'cancelled', statusMessage: 'user' });
        expect(final).not.toHaveProperty('result');
      }
    }
  });
});

describe('RedisTaskStore cursors and owners', () => {
  it('refuses cursors it did not make: not numeric, signed, zero, fractional, past its counter, huge', async () => {
    const tasks = store();
    for (const id of ['t1', 't2', 't3']) await tasks.create(working(id, 'a'));
    const first = (await tasks.list('a', undefined, 1))!;
    expect(first.nextCursor).toBe('3');
    expect((await tasks.list('a', '3', 5))?.tasks.map((task) => task.taskId)).toEqual(['t2', 't1']);
    const forged = ['abc', '', ' 3', '3 ', '-1', '0', '03', '2.5', '1e1', '0x1', '4', '9999999999999999'];
    for (const cursor of [...forged, '9'.repeat(17), '9'.repeat(400)])
      expect(await tasks.list('a', cursor, 5)).toBeUndefined();
  });

  it("keeps every owner's tasks from every other owner", async () => {
    const tasks = store();
    await tasks.create(working('t1', 'alice'));
    expect(await tasks.get('bob', 't1')).toBeUndefined();
    expect(await tasks.update('bob', 't1', { status: 'completed' })).toBeUndefined();
    expect(await tasks.cancel('bob', 't1')).toBeUndefined();
    expect(await tasks.list('bob', undefined, 10)).toEqual({ tasks: [] });
    // An owner whose name extends another's, or looks like a key, meets nothing either.
    expect(await tasks.list('alice:', undefined, 10)).toEqual({ tasks: [] });
    expect(await tasks.get('"alice"', 't1')).toBeUndefined();
    expect(await tasks.get('alice', 't1')).toMatchObject({ status: 'working' });
    expect(await tasks.list('alice', undefined, 10)).toMatchObject({ tasks: [{ taskId: 't1' }] });
  });

  it('answers a task id that cannot be its own as absent, and refuses to create one', async () => {
    const tasks = store();
    expect(await tasks.get('a', 'index:totals')).toBeUndefined();
    expect(await tasks.get('a', 'x'.repeat(257))).toBeUndefined();
    expect(await tasks.cancel('a', 'owner:a')).toBeUndefined();
    await expect(tasks.create(working('owner:a', 'a'))).rejects.toThrow(/taskId/);
    await expect(tasks.create(working('', 'a'))).rejects.toThrow(/taskId/);
  });
});

describe('RedisTaskStore bounds', () => {
  it('refuses a task past the byte bound, and results that would pass it', async () => {
    const tasks = store({ maxBytes: 2_000 });
    expect(await tasks.create(working('t1', 'a'))).toBe(true);
    expect(await tasks.update('a', 't1', { status: 'completed', result: { text: 'x'.repeat(3_000) } })).toBeUndefined();
    expect((await tasks.get('a', 't1'))?.status).toBe('working');
    expect(await tasks.create({ ...working('t2', 'a'), result: { text: 'x'.repeat(3_000) } })).toBe(false);
  });

  it('counts the JSON size in UTF-8 bytes, exactly', async () => {
    const task = { ...working('t1', 'a'), statusMessage: 'déjà €' };
    const size = Buffer.byteLength(JSON.stringify(task));
    expect(await store({ maxBytes: size - 1 }).create(task)).toBe(false);
    const tasks = store({ maxBytes: size });
    expect(await tasks.create(task)).toBe(true);
    // 600 characters, 1 800 bytes in UTF-8: with the record around them, past the bound; 600 ASCII ones fit.
    const roomy = store({ maxBytes: 2_000 });
    await roomy.create(working('t1', 'a'));
    expect(await roomy.update('a', 't1', { status: 'completed', result: { text: '€'.repeat(600) } })).toBeUndefined();
    expect(await roomy.update('a', 't1', { status: 'completed', result: { text: 'e'.repeat(600) } })).toBeDefined();
  });

  it('gives back the bytes of questions removed, to another task', async () => {
    const tasks = store({ maxBytes: 2_000 });
    expect(await tasks.create(working('t1', 'a'))).toBe(true);
    const half = { q: { method: 'elicitation/create', params: { message: 'x'.repeat(1_000) } } };
    expect(await tasks.update('a', 't1', { inputRequests: half })).toBeDefined();
    expect(await tasks.create({ ...working('t2', 'a'), inputRequests: half })).toBe(false);
    expect(await tasks.update('a', 't1', { inputRequests: undefined })).not.toHaveProperty('inputRequests');
    expect(await tasks.create({ ...working('t2', 'a'), inputRequests: half })).toBe(true);
  });

  it('refuses one task past maxTaskBytes while the total has room', async () => {
    const tasks = store({ maxTaskBytes: 1_000 });
    expect(await tasks.create({ ...working('big', 'a'), statusMessage: 'x'.repeat(1_000) })).toBe(false);
    expect(await tasks.create(working('t1', 'a'))).toBe(true);
    expect(await tasks.update('a', 't1', { statusMessage: 'x'.repeat(1_000) })).toBeUndefined();
    expect(await tasks.update('a', 't1', { statusMessage: 'x'.repeat(100) })).toBeDefined();
  });

  it('refuses past the total bound, without evicting', async () => {
    const tasks = store({ maxTasks: 1 });
    expect(await tasks.create(working('t1', 'a'))).toBe(true);
    expect(await tasks.create(working('t2', 'b'))).toBe(false);
    expect(await tasks.get('a', 't1')).toBeDefined();
  });
});

describe('RedisTaskStore inputs and failures', () => {
  it('refuses malformed options, owners, changes and limits with a message that names them', async () => {
    expect(() => new RedisTaskStore(redis, { prefix: '' })).toThrow(/prefix/);
    expect(() => store({ maxTasks: 0 })).toThrow(/maxTasks/);
    expect(() => store({ maxBytes: 1.5 })).toThrow(/maxBytes/);
    const tasks = store();
    await tasks.create(working('t1', 'a'));
    await expect(tasks.get('', 't1')).rejects.toThrow(/owner/);
    await expect(tasks.update('a', 't1', { owner: 'b' } as never)).rejects.toThrow(/"owner"/);
    await expect(tasks.update('a', 't1', { status: 3 } as never)).rejects.toThrow(/status/);
    await expect(tasks.list('a', undefined, 0)).rejects.toThrow(/limit/);
    await expect(tasks.create({ ...working('t2', 'a'), extra: 1 } as never)).rejects.toThrow(/"extra"/);
    await expect(tasks.create({ ...working('t2', 'a'), expiresAt: NaN })).rejects.toThrow(/expiresAt/);
    await expect(tasks.create({ ...working('t2', 'a'), expiresAt: 1e20 })).rejects.toThrow(/expiresAt/);
    expect(await tasks.get('a', 't1')).toMatchObject({ owner: 'a', status: 'working' });
  });

  it('rejects at once while Redis is unreachable, and reports itself down', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const unreachable = new Redis(port, '127.0.0.1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy: () => null,
      connectTimeout: 500,
      commandTimeout: 500,
    });
    unreachable.on('error', () => undefined);
    try {
      const tasks = new RedisTaskStore(unreachable, { prefix: prefix('down') });
      const started = performance.now();
      await expect(tasks.get('a', 't1')).rejects.toThrow();
      await expect(tasks.create(working('t1', 'a'))).rejects.toThrow();
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(await tasks.health()).toMatchObject({ up: false });
    } finally {
      unreachable.disconnect();
    }
  });

  it('reports itself up with the round trip of a ping', async () => {
    expect(await store().health()).toMatchObject({ up: true, status: 'ready', latencyMs: expect.any(Number) });
  });
});

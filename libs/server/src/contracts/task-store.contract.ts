/// <reference types="jest" />
// A Jest suite to run in a spec: it uses the Jest globals of the run that imports it.
import { TaskRecord, TaskStore } from '../tasks/task.store';

/** An implementation under test: its name, and a factory of a fresh, empty store with the bounds given. */
export type TaskStoreCase = [
  name: string,
  make: (bounds: { maxTasksPerOwner: number }) => TaskStore | Promise<TaskStore>,
];

function task(taskId: string, owner: string, extra: Partial<TaskRecord> = {}): TaskRecord {
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
    ttlMs: 60_000,
    expiresAt: now + 60_000,
    ...extra,
  };
}

/**
 * The contract every {@link TaskStore} meets, as a Jest suite: run it in a spec of your own over your
 * implementation(s). Each case's factory returns a fresh, empty store.
 *
 * @example
 * taskStoreContract([['RedisTaskStore', ({ maxTasksPerOwner }) => new RedisTaskStore(redis, { prefix, maxTasksPerOwner })]]);
 */
export function taskStoreContract(cases: TaskStoreCase[]): void {
  describe.each(cases)('TaskStore contract: %s', (_name, make) => {
    let store: TaskStore;

    beforeEach(async () => {
      store = await make({ maxTasksPerOwner: 3 });
    });

    it('creates a task and reads back an equal one, for its owner only', async () => {
      const created = task('t1', 'alice');
      expect(await store.create(created)).toBe(true);
      expect(await store.get('alice', 't1')).toEqual(created);
      expect(await store.get('mallory', 't1')).toBeUndefined();
    });

    it('refuses a second task with the same id', async () => {
      await store.create(task('t1', 'alice'));
      expect(await store.create(task('t1', 'bob'))).toBe(false);
      expect(await store.get('bob', 't1')).toBeUndefined();
    });

    it('updates a working task for its owner, and refuses another owner', async () => {
      await store.create(task('t1', 'alice'));
      expect(await store.update('mallory', 't1', { status: 'completed' })).toBeUndefined();
      const updated = await store.update('alice', 't1', { status: 'input_required', statusMessage: 'asks' });
      expect(updated).toMatchObject({ taskId: 't1', status: 'input_required', statusMessage: 'asks' });
      expect(updated!.lastUpdatedAt).toBeGreaterThanOrEqual(updated!.createdAt);
      expect(await store.get('alice', 't1')).toEqual(updated);
    });

    it('keeps the era, tool and questions of a task as created', async () => {
      const created = task('t1', 'alice', {
        era: 'legacy',
        tool: 'slow_compute',
        status: 'input_required',
        inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Sure?' } } },
      });
      await store.create(created);
      expect(await store.get('alice', 't1')).toEqual(created);
    });

    it('replaces the questions an update names, keeps them otherwise, removes them when named undefined', async () => {
      await store.create(task('t1', 'alice'));
      const first = { a: { method: 'elicitation/create', params: { message: 'A?' } } };
      const both = { ...first, b: { method: 'roots/list', params: {} } };
      expect(await store.update('alice', 't1', { status: 'input_required', inputRequests: both })).toMatchObject({
        inputRequests: both,
      });
      expect((await store.get('alice', 't1'))?.inputRequests).toEqual(both);
      await store.update('alice', 't1', { inputRequests: first });
      await store.update('alice', 't1', { statusMessage: 'waiting' });
      expect(await store.get('alice', 't1')).toMatchObject({ status: 'input_required', inputRequests: first });
      const answered = await store.update('alice', 't1', { status: 'working', inputRequests: undefined });
      expect(answered).not.toHaveProperty('inputRequests');
      expect(await store.get('alice', 't1')).not.toHaveProperty('inputRequests');
      expect(await store.get('alice', 't1')).toMatchObject({ status: 'working', statusMessage: 'waiting' });
    });

    it('never removes the status, even when an update names it undefined', async () => {
      await store.create(task('t1', 'alice'));
      expect(await store.update('alice', 't1', { status: undefined, statusMessage: 'still' })).toMatchObject({
        status: 'working',
        statusMessage: 'still',
      });
      expect((await store.get('alice', 't1'))?.status).toBe('working');
    });

    it('keeps a terminal task as it is: updates are refused, cancelling answers it unchanged', async () => {
      await store.create(task('t1', 'alice'));
      const done = await store.update('alice', 't1', { status: 'completed', result: { content: [] } });
      expect(done?.status).toBe('completed');
      expect(await store.update('alice', 't1', { status: 'working' })).toBeUndefined();
      expect(await store.cancel('alice', 't1')).toEqual(done);
      expect(await store.get('alice', 't1')).toEqual(done);
    });

    it('cancels a task that is not terminal, for its owner only', async () => {
      await store.create(task('t1', 'alice'));
      expect(await store.cancel('mallory', 't1')).toBeUndefined();
      expect(await store.cancel('alice', 't1', 'user')).toMatchObject({ status: 'cancelled', statusMessage: 'user' });
      expect(await store.cancel('alice', 'missing')).toBeUndefined();
    });

    it("lists an owner's tasks newest first, page by page, and nobody else's", async () => {
      for (const [id, at] of [
        ['t1', 1],
        ['t2', 2],
        ['t3', 3],
      ] as const) {
        await store.create(task(id, 'alice', { createdAt: Date.now() + at }));
      }
      await store.create(task('b1', 'bob'));
      const first = (await store.list('alice', undefined, 2))!;
      expect(first.tasks.map((t) => t.taskId)).toEqual(['t3', 't2']);
      expect(first.nextCursor).toBeDefined();
      const second = (await store.list('alice', first.nextCursor, 2))!;
      expect(second.tasks.map((t) => t.taskId)).toEqual(['t1']);
      expect(second.nextCursor).toBeUndefined();
      expect((await store.list('bob', undefined, 10))!.tasks.map((t) => t.taskId)).toEqual(['b1']);
      expect((await store.list('nobody', undefined, 10))!.tasks).toEqual([]);
    });

    it('goes on from a cursor whose task expired since, and refuses a cursor it did not make', async () => {
      await store.create(task('t1', 'alice'));
      await store.create(task('t2', 'alice', { expiresAt: Date.now() + 40 }));
      await store.create(task('t3', 'alice'));
      const first = (await store.list('alice', undefined, 2))!;
      expect(first.tasks.map((t) => t.taskId)).toEqual(['t3', 't2']);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect((await store.list('alice', first.nextCursor, 2))!.tasks.map((t) => t.taskId)).toEqual(['t1']);
      for (const forged of ['not-a-cursor', '', '-1', '1e3', '999999999'])
        expect(await store.list('alice', forged, 2)).toBeUndefined();
    });

    it('forgets a task once it expired', async () => {
      await store.create(task('old', 'alice', { expiresAt: Date.now() - 1 }));
      expect(await store.get('alice', 'old')).toBeUndefined();
      expect((await store.list('alice', undefined, 10))!.tasks).toEqual([]);
    });

    it("refuses an owner's task past the per-owner bound, without evicting, while others still get theirs", async () => {
      for (const id of ['t1', 't2', 't3']) expect(await store.create(task(id, 'alice'))).toBe(true);
      expect(await store.create(task('t4', 'alice'))).toBe(false);
      expect(await store.get('alice', 't1')).toBeDefined();
      expect(await store.create(task('b1', 'bob'))).toBe(true);
    });
  });
}

import { taskStoreContract } from '../contracts/task-store.contract';
import { InMemoryTaskStore } from './in-memory-task.store';
import { TaskRecord } from './task.store';

taskStoreContract([['InMemoryTaskStore', ({ maxTasksPerOwner }) => new InMemoryTaskStore({ maxTasksPerOwner })]]);

/** A working task of `owner`, kept long enough for any test. */
function working(taskId: string, owner: string): TaskRecord {
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
    ttlMs: 1e6,
    expiresAt: now + 1e6,
  };
}

describe('InMemoryTaskStore bounds', () => {
  it('refuses a task past the byte bound, and results that would pass it', async () => {
    const store = new InMemoryTaskStore({ maxBytes: 2_000 });
    expect(await store.create(working('t1', 'a'))).toBe(true);
    expect(await store.update('a', 't1', { status: 'completed', result: { text: 'x'.repeat(3_000) } })).toBeUndefined();
    expect((await store.get('a', 't1'))?.status).toBe('working');
  });

  it('counts UTF-8 bytes, not string length: a non-ASCII result under the bound in characters is refused', async () => {
    const store = new InMemoryTaskStore({ maxBytes: 2_000 });
    expect(await store.create(working('t1', 'a'))).toBe(true);
    // 600 characters, 1 800 bytes in UTF-8: with the record around them, past 2 000 bytes.
    expect(await store.update('a', 't1', { status: 'completed', result: { text: '€'.repeat(600) } })).toBeUndefined();
    expect(await store.update('a', 't1', { status: 'completed', result: { text: 'e'.repeat(600) } })).toBeDefined();
  });

  it('counts the questions of a task in its bytes: questions past the byte bound are refused', async () => {
    const store = new InMemoryTaskStore({ maxBytes: 2_000 });
    expect(await store.create(working('t1', 'a'))).toBe(true);
    const big = { q: { method: 'elicitation/create', params: { message: 'x'.repeat(3_000) } } };
    expect(await store.update('a', 't1', { status: 'input_required', inputRequests: big })).toBeUndefined();
    expect(await store.get('a', 't1')).toMatchObject({ status: 'working' });
    expect(await store.create({ ...working('t2', 'a'), inputRequests: big })).toBe(false);
    // Questions that fit once, not twice; removing them from one task makes room for the other's.
    const half = { q: { method: 'elicitation/create', params: { message: 'x'.repeat(1_000) } } };
    expect(await store.update('a', 't1', { inputRequests: half })).toBeDefined();
    expect(await store.create({ ...working('t2', 'a'), inputRequests: half })).toBe(false);
    expect(await store.update('a', 't1', { inputRequests: undefined })).toBeDefined();
    expect(await store.create({ ...working('t2', 'a'), inputRequests: half })).toBe(true);
  });

  it('refuses past the total bound', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 1 });
    expect(await store.create(working('t1', 'a'))).toBe(true);
    expect(await store.create(working('t2', 'b'))).toBe(false);
  });
});

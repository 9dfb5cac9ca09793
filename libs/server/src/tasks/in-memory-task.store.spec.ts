import { taskStoreContract } from '../contracts/task-store.contract';
import { InMemoryTaskStore } from './in-memory-task.store';

taskStoreContract([['InMemoryTaskStore', ({ maxTasksPerOwner }) => new InMemoryTaskStore({ maxTasksPerOwner })]]);

describe('InMemoryTaskStore bounds', () => {
  it('refuses a task past the byte bound, and results that would pass it', async () => {
    const store = new InMemoryTaskStore({ maxBytes: 2_000 });
    const now = Date.now();
    const base = {
      owner: 'a',
      server: 's',
      method: 'tools/call',
      status: 'working' as const,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 1e6,
      expiresAt: now + 1e6,
    };
    expect(await store.create({ ...base, taskId: 't1' })).toBe(true);
    expect(await store.update('a', 't1', { status: 'completed', result: { text: 'x'.repeat(3_000) } })).toBeUndefined();
    expect((await store.get('a', 't1'))?.status).toBe('working');
  });

  it('refuses past the total bound', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 1 });
    const now = Date.now();
    const base = {
      server: 's',
      method: 'tools/call',
      status: 'working' as const,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 1e6,
      expiresAt: now + 1e6,
    };
    expect(await store.create({ ...base, owner: 'a', taskId: 't1' })).toBe(true);
    expect(await store.create({ ...base, owner: 'b', taskId: 't2' })).toBe(false);
  });
});

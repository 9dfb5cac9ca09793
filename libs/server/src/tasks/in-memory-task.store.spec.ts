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
      era: 'modern' as const,
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

  it('counts UTF-8 bytes, not string length: a non-ASCII result under the bound in characters is refused', async () => {
    const store = new InMemoryTaskStore({ maxBytes: 2_000 });
    const now = Date.now();
    const task = {
      taskId: 't1',
      owner: 'a',
      server: 's',
      method: 'tools/call',
      era: 'modern' as const,
      status: 'working' as const,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 1e6,
      expiresAt: now + 1e6,
    };
    expect(await store.create(task)).toBe(true);
    // 600 characters, 1 800 bytes in UTF-8: with the record around them, past 2 000 bytes.
    expect(await store.update('a', 't1', { status: 'completed', result: { text: '€'.repeat(600) } })).toBeUndefined();
    expect(await store.update('a', 't1', { status: 'completed', result: { text: 'e'.repeat(600) } })).toBeDefined();
  });

  it('counts the questions of a task in its bytes: questions past the byte bound are refused', async () => {
    const store = new InMemoryTaskStore({ maxBytes: 2_000 });
    const now = Date.now();
    const task = {
      taskId: 't1',
      owner: 'a',
      server: 's',
      method: 'tools/call',
      era: 'modern' as const,
      status: 'working' as const,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 1e6,
      expiresAt: now + 1e6,
    };
    expect(await store.create(task)).toBe(true);
    const big = { q: { method: 'elicitation/create', params: { message: 'x'.repeat(3_000) } } };
    expect(await store.update('a', 't1', { status: 'input_required', inputRequests: big })).toBeUndefined();
    expect(await store.get('a', 't1')).toMatchObject({ status: 'working' });
    expect(await store.create({ ...task, taskId: 't2', inputRequests: big })).toBe(false);
    // Questions that fit once, not twice; removing them from one task makes room for the other's.
    const half = { q: { method: 'elicitation/create', params: { message: 'x'.repeat(1_000) } } };
    expect(await store.update('a', 't1', { inputRequests: half })).toBeDefined();
    expect(await store.create({ ...task, taskId: 't2', inputRequests: half })).toBe(false);
    expect(await store.update('a', 't1', { inputRequests: undefined })).toBeDefined();
    expect(await store.create({ ...task, taskId: 't2', inputRequests: half })).toBe(true);
  });

  it('refuses past the total bound', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 1 });
    const now = Date.now();
    const base = {
      server: 's',
      method: 'tools/call',
      era: 'modern' as const,
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

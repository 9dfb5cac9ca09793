import { INestApplicationContext, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { AddressInfo, Socket, createServer } from 'node:net';
import { Redis } from 'ioredis';
import { Queue, Worker } from 'bullmq';
import {
  McpArgs,
  McpCtx,
  McpModule,
  McpRequestContext,
  McpTaskJob,
  McpTool,
  TaskRecord,
  TaskStore,
} from '@conduit-mcp/server';
import { McpRedis } from '../mcp-redis';
import { McpRedisModule } from '../mcp-redis.module';
import { TEST_REDIS_URL, deleteKeys, keysUnder, testPrefix, testRedis } from '../redis-test.fixtures-spec';
import { McpTaskWorker } from './mcp-task.worker';
import { RedisTaskQueue, taskQueueLocation } from './redis-task.queue';

// A worker's app: McpRedisModule and an McpModule (no HTTP) whose durable tools the worker runs, on the shared Redis
// under a prefix of each test's own. Tasks are put in the store and queued by hand, as an instance's runner does.

const SERVER = 'jobs';

@Injectable()
class Jobs {
  static runs: string[] = [];
  static aborted: string[] = [];
  static started: string[] = [];

  @McpTool({
    name: 'echo',
    task: 'optional',
    durable: true,
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  })
  echo(@McpArgs() { text }: { text: string }, @McpCtx() ctx: McpRequestContext) {
    Jobs.runs.push(text);
    return `${text} for ${ctx.auth?.subject ?? 'nobody'}`;
  }

  @McpTool({ name: 'hang', task: 'optional', durable: true })
  async hang(@McpCtx() ctx: McpRequestContext) {
    Jobs.started.push(ctx.requestId as string);
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    Jobs.aborted.push((ctx.signal.reason as Error).message);
    throw ctx.signal.reason;
  }
}

const redis = testRedis();
const prefixes: string[] = [];
const contexts: INestApplicationContext[] = [];

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
  Jobs.runs = [];
  Jobs.aborted = [];
  Jobs.started = [];
});

afterAll(async () => {
  for (const prefix of prefixes) await deleteKeys(redis, prefix);
  await redis.quit();
});

async function workerApp(label: string) {
  const keyPrefix = testPrefix(`worker-${label}`);
  prefixes.push(keyPrefix);
  @Module({
    imports: [
      McpRedisModule.forRoot({ url: TEST_REDIS_URL, keyPrefix }),
      McpModule.forRootAsync({
        inject: [McpRedis],
        useFactory: (mcpRedis: McpRedis) => ({ name: SERVER, version: '1', http: false, ...mcpRedis.state(SERVER) }),
      }),
    ],
    providers: [Jobs],
  })
  class WorkerModule {}
  const app = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
  contexts.push(app);
  const state = app.get(McpRedis).state(SERVER);
  return {
    app,
    keyPrefix,
    worker: app.get(McpTaskWorker),
    store: app.get<TaskStore>(TaskStore),
    queue: state.taskQueue,
  };
}

/** A working task in the store and its job, as an instance's runner makes them. */
async function queued(
  store: TaskStore,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<{ task: TaskRecord; job: McpTaskJob }> {
  const now = Date.now();
  const task: TaskRecord = {
    taskId: randomUUID(),
    owner: 'subject:ada',
    server: SERVER,
    method: 'tools/call',
    era: 'modern',
    tool,
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 600_000,
    expiresAt: now + 600_000,
  };
  expect(await store.create(task)).toBe(true);
  const job: McpTaskJob = {
    taskId: task.taskId,
    owner: task.owner,
    server: SERVER,
    tool,
    era: 'modern',
    protocolVersion: '2026-07-28',
    arguments: args,
    clientCapabilities: {},
    transport: 'streamable-http',
    auth: { subject: 'ada', scopes: [], claims: {} },
    createdAt: now,
  };
  return { task, job };
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function statusOf(store: TaskStore, task: TaskRecord, status: TaskRecord['status']) {
  return until(`task ${status}`, async () => {
    const now = await store.get(task.owner, task.taskId);
    return now?.status === status ? now : undefined;
  });
}

describe('McpTaskWorker', () => {
  it("runs a queued task through its server's pipeline, with the call's auth, and records the result", async () => {
    const { worker, store, queue } = await workerApp('runs');
    await worker.start(SERVER, { concurrency: 2 });
    expect(worker.servers).toEqual([SERVER]);
    const { task, job } = await queued(store, 'echo', { text: 'hello' });
    await queue.enqueue(job);
    const done = await statusOf(store, task, 'completed');
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'hello for ada' }] });
    expect(Jobs.runs).toEqual(['hello']);
  });

  it('runs a task once when its job is queued twice, and skips a task cancelled while it waited', async () => {
    const { worker, store, queue, keyPrefix } = await workerApp('once');
    const first = await queued(store, 'echo', { text: 'first' });
    await queue.enqueue(first.job);
    await queue.enqueue(first.job); // same task id: the job exists already
    const { prefix, name } = taskQueueLocation(keyPrefix, SERVER);
    const inspect = new Queue(name, { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix });
    try {
      expect(await inspect.getWaitingCount()).toBe(1);
      const skipped = await queued(store, 'echo', { text: 'skipped' });
      await queue.enqueue(skipped.job);
      await store.cancel(skipped.task.owner, skipped.task.taskId, 'Cancelled by the client');
      await worker.start(SERVER);
      await statusOf(store, first.task, 'completed');
      await until('the queue emptied', async () => {
        const { waiting, active } = await inspect.getJobCounts('waiting', 'active');
        return waiting + active === 0 ? true : undefined;
      });
      expect(Jobs.runs).toEqual(['first']);
      expect((await store.get(skipped.task.owner, skipped.task.taskId))!.status).toBe('cancelled');
      // Ended jobs are removed: the store keeps the outcome.
      expect(await inspect.getJobCounts('completed', 'failed')).toEqual({ completed: 0, failed: 0 });
    } finally {
      await inspect.close();
      await (inspect.opts.connection as { quit(): Promise<unknown> }).quit();
    }
  });

  it('stops the running tasks when it closes: failed, "The worker shut down before the task ended"', async () => {
    const { worker, store, queue } = await workerApp('close');
    await worker.start(SERVER);
    const { task, job } = await queued(store, 'hang');
    await queue.enqueue(job);
    await until('the handler started', () => (Jobs.started.length ? true : undefined));
    await worker.close();
    expect(Jobs.aborted).toEqual(['The worker shut down before the task ended']);
    expect(await store.get(task.owner, task.taskId)).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'The worker shut down before the task ended' },
    });
    expect(worker.servers).toEqual([]);
    await worker.close(); // idempotent
  });

  it('fails the task of a job whose worker died mid-run rather than run it again (at most once)', async () => {
    const { worker, store, queue, keyPrefix } = await workerApp('stalled');
    const { task, job } = await queued(store, 'echo', { text: 'never twice' });
    await queue.enqueue(job);
    // A worker that takes the job and dies: its hold on the job lapses, nothing completes it.
    const { prefix, name } = taskQueueLocation(keyPrefix, SERVER);
    let dying!: Worker;
    const taken = new Promise<void>((resolve) => {
      dying = new Worker(
        name,
        async () => {
          resolve();
          await new Promise(() => undefined);
        },
        {
          connection: {
            ...redis.options,
            maxRetriesPerRequest: null,
            commandTimeout: undefined,
            retryStrategy: undefined,
          },
          prefix,
          lockDuration: 300,
          stalledInterval: 300,
          maxStalledCount: 0,
          skipLockRenewal: true,
        },
      );
    });
    await taken;
    await dying.close(true);
    await worker.start(SERVER, { lockDurationMs: 300, stalledIntervalMs: 300 });
    const failed = await statusOf(store, task, 'failed');
    expect(failed.error).toMatchObject({ code: -32603, message: expect.stringContaining('not run twice') });
    expect(Jobs.runs).toEqual([]);
  });

  it('refuses an unknown server, a second start for one server, and bad options', async () => {
    const { worker } = await workerApp('refusals');
    await expect(worker.start('nope')).rejects.toThrow('this app has no MCP server "nope" (its servers: "jobs")');
    await expect(worker.start(SERVER, { concurrency: 0 })).rejects.toThrow(
      'concurrency must be an integer from 1 to 1000',
    );
    await worker.start(SERVER);
    await expect(worker.start(SERVER)).rejects.toThrow('the tasks of server "jobs" run already');
  });
});

describe('RedisTaskQueue', () => {
  it('keeps its jobs under <prefix>tasks:<server>:, by task id', async () => {
    const keyPrefix = testPrefix('queue-keys');
    prefixes.push(keyPrefix);
    const queue = new RedisTaskQueue(redis, { prefix: keyPrefix, server: 'a:b' });
    try {
      const job = { taskId: randomUUID() } as McpTaskJob;
      await queue.enqueue(job);
      const keys = await keysUnder(redis, keyPrefix);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((key) => key.startsWith(`${keyPrefix}tasks:a%3Ab:`))).toBe(true);
      expect(keys).toContain(`${keyPrefix}tasks:a%3Ab:${job.taskId}`);
    } finally {
      await queue.close();
    }
    await expect(queue.enqueue({ taskId: 'x' } as McpTaskJob)).rejects.toThrow('closed');
  });

  it('refuses a job past maxJobBytes, and options out of bounds', async () => {
    const queue = new RedisTaskQueue(redis, { prefix: testPrefix('queue-bytes'), server: 's', maxJobBytes: 100 });
    await expect(queue.enqueue({ taskId: 't', arguments: { text: 'x'.repeat(200) } } as never)).rejects.toThrow(
      /a job of \d+ bytes exceeds maxJobBytes \(100\)/,
    );
    await queue.close();
    expect(() => new RedisTaskQueue(redis, { prefix: 'p:', server: '' })).toThrow('server must be a name');
    expect(() => new RedisTaskQueue(redis, { prefix: 'p:', server: 's', enqueueTimeoutMs: 0 })).toThrow(
      'enqueueTimeoutMs must be an integer',
    );
  });

  it('rejects at once when Redis is down, and within enqueueTimeoutMs when it does not answer', async () => {
    const down = redis.duplicate({ port: 1, lazyConnect: true, retryStrategy: () => null });
    down.on('error', () => undefined);
    const refused = new RedisTaskQueue(down, { prefix: testPrefix('queue-down'), server: 's' });
    await expect(refused.enqueue({ taskId: 't' } as McpTaskJob)).rejects.toThrow();
    await refused.close();
    down.disconnect();

    // A server that accepts connections and never answers (a frozen Redis).
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const frozen = new Redis({ port: (silent.address() as AddressInfo).port, host: '127.0.0.1', lazyConnect: true });
    frozen.on('error', () => undefined);
    const queue = new RedisTaskQueue(frozen, {
      prefix: testPrefix('queue-frozen'),
      server: 's',
      enqueueTimeoutMs: 300,
    });
    const started = Date.now();
    try {
      await expect(queue.enqueue({ taskId: 't' } as McpTaskJob)).rejects.toThrow('not queued within 300 ms');
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await queue.close();
      frozen.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

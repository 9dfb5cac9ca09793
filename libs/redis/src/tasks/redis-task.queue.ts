import { Queue } from 'bullmq';
import type { McpTaskJob, McpTaskQueue } from '@conduit-mcp/server';
import type { Redis } from 'ioredis';
import { withTimeout } from '../connection/bounded.wait';

/** Options of a {@link RedisTaskQueue}. */
export interface RedisTaskQueueOptions {
  /** The module's key prefix: the queue's keys are `<prefix>tasks:<server>:…`. */
  prefix: string;
  /** The server whose durable tasks it queues (every instance and worker of it uses the same name). */
  server: string;
  /** The largest job (as JSON: mostly the call's arguments) it queues, in bytes. Default 16 MiB. */
  maxJobBytes?: number;
  /** `enqueue` gives up (and the task fails) after this. Default 5 000 ms. */
  enqueueTimeoutMs?: number;
}

const DEFAULT_MAX_JOB_BYTES = 16 * 1024 * 1024;
/** Redis refuses larger bulk strings anyway (`proto-max-bulk-len`). */
const MAX_JOB_BYTES_LIMIT = 512 * 1024 * 1024;
const DEFAULT_ENQUEUE_TIMEOUT_MS = 5_000;
const MAX_NAME_LENGTH = 200;
/** What every job of the queue's is called (BullMQ wants a name; the server is the queue's). */
export const TASK_JOB_NAME = 'tool-task';

/**
 * Where BullMQ keeps the queue of `server` under the module's `prefix`: BullMQ's own `prefix` option is
 * `<prefix>tasks` and the queue's name the server's (encoded: BullMQ refuses `:` in a queue name), so its keys are
 * `<prefix>tasks:<server>:…`.
 */
export function taskQueueLocation(prefix: string, server: string): { prefix: string; name: string } {
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > MAX_NAME_LENGTH)
    throw new Error(`RedisTaskQueue: prefix must be a string of 1 to ${MAX_NAME_LENGTH} characters`);
  if (typeof server !== 'string' || server.length === 0 || server.length > MAX_NAME_LENGTH)
    throw new Error(`RedisTaskQueue: server must be a name of 1 to ${MAX_NAME_LENGTH} characters`);
  return { prefix: `${prefix}tasks`, name: encodeURIComponent(server) };
}

/**
 * The {@link McpTaskQueue} of `@conduit-mcp/redis`: a BullMQ queue per server, which `McpTaskWorker` runs. A job's id
 * is its task's id, so queuing a task twice while its job exists is a no-op; a job runs once (one attempt) and is
 * removed when it ends, either way — the task store keeps the outcome. The BullMQ queue and its connection (a
 * duplicate of `redis`) are made on the first `enqueue`, so an app that never queues opens none.
 *
 * @example
 * const queue = new RedisTaskQueue(redis, { prefix: 'mcp:', server: 'reports' });
 * McpModule.forRoot({ name: 'reports', version: '1.0.0', taskStore, eventBus, taskQueue: queue });
 */
export class RedisTaskQueue implements McpTaskQueue {
  private readonly location: { prefix: string; name: string };
  private readonly maxJobBytes: number;
  private readonly enqueueTimeoutMs: number;
  private queue: Queue | undefined;
  private connection: Redis | undefined;
  private closed = false;

  constructor(
    private readonly redis: Redis,
    options: RedisTaskQueueOptions,
  ) {
    if (!redis) throw new Error('RedisTaskQueue: a Redis connection is needed');
    this.location = taskQueueLocation(options?.prefix, options?.server);
    this.maxJobBytes = bounded('maxJobBytes', options.maxJobBytes, DEFAULT_MAX_JOB_BYTES, MAX_JOB_BYTES_LIMIT);
    this.enqueueTimeoutMs = bounded('enqueueTimeoutMs', options.enqueueTimeoutMs, DEFAULT_ENQUEUE_TIMEOUT_MS, 600_000);
  }

  /**
   * Queues `job` under its task id; rejects when the job is larger than `maxJobBytes`, when Redis fails, or after
   * `enqueueTimeoutMs`, and once closed.
   */
  async enqueue(job: McpTaskJob): Promise<void> {
    if (this.closed) throw new Error('RedisTaskQueue: closed, it queues nothing');
    const bytes = Buffer.byteLength(JSON.stringify(job));
    if (bytes > this.maxJobBytes)
      throw new Error(`RedisTaskQueue: a job of ${bytes} bytes exceeds maxJobBytes (${this.maxJobBytes})`);
    const adding = this.open().add(TASK_JOB_NAME, job, {
      jobId: job.taskId,
      attempts: 1,
      removeOnComplete: true,
      removeOnFail: true,
    });
    await withTimeout(adding, this.enqueueTimeoutMs, `RedisTaskQueue: not queued within ${this.enqueueTimeoutMs} ms`);
  }

  /** Closes the BullMQ queue and its connection (bounded); idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const queue = this.queue;
    const connection = this.connection;
    this.queue = undefined;
    this.connection = undefined;
    if (queue) await withTimeout(queue.close(), 2_000, 'closing timed out').catch(() => undefined);
    connection?.disconnect();
  }

  private open(): Queue {
    if (this.queue) return this.queue;
    // A connection of the queue's own: BullMQ loads its scripts on it. Commands queue while it connects; the
    // enqueue timeout bounds that wait.
    this.connection = this.redis.duplicate({ enableOfflineQueue: true });
    this.connection.on('error', () => undefined); // the module's connection logs Redis failures
    this.queue = new Queue(this.location.name, { connection: this.connection, prefix: this.location.prefix });
    this.queue.on('error', () => undefined);
    return this.queue;
  }
}

function bounded(name: string, value: number | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1 || value > max)
    throw new Error(`RedisTaskQueue: ${name} must be an integer from 1 to ${max}`);
  return value;
}

import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ConnectionOptions, Job, Worker } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { McpTaskExecutor, McpTaskJob } from '@conduit-mcp/server';
import { McpRedis } from '../mcp-redis';
import { taskQueueLocation } from './redis-task.queue';
import { messageOf, withTimeout } from '../connection/bounded.wait';

/** Options of {@link McpTaskWorker.start}. */
export interface McpTaskWorkerOptions {
  /** Tasks run at once by this worker. Default 8. */
  concurrency?: number;
  /**
   * How long the worker's hold on a running job lasts without being renewed (it renews it while alive). A job whose
   * hold lapsed — its worker died or hung — is found by the next stalled-job check and its task `failed`, not run
   * again. Default 30 000 ms.
   */
  lockDurationMs?: number;
  /** How often lapsed jobs are looked for. Default 30 000 ms. */
  stalledIntervalMs?: number;
  /** `start` gives up when Redis is not reachable within this. Default 10 000 ms. */
  readyTimeoutMs?: number;
  /** `close` waits this long for the stopped tasks to record their end, then closes regardless. Default 10 000 ms. */
  closeTimeoutMs?: number;
}

const DEFAULTS: Required<McpTaskWorkerOptions> = {
  concurrency: 8,
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
  readyTimeoutMs: 10_000,
  closeTimeoutMs: 10_000,
};
const MAX_CONCURRENCY = 1_000;
const MAX_MS = 24 * 60 * 60_000;

/** Why a task fails when its worker stops it. */
const SHUT_DOWN = 'The worker shut down before the task ended';
/** Why a task fails when its job was given up without having run to its end. */
const GIVEN_UP = 'The worker running the task stopped before it ended; a task is not run twice';

interface Running {
  worker: Worker;
  /** The signals of the jobs it runs now, to stop them when it closes. */
  controllers: Set<AbortController>;
  closing: boolean;
  closeTimeoutMs: number;
}

/**
 * Runs the durable tools' tasks (`@McpTool({ durable: true })`) queued by the instances of a server, in a process of
 * its own: boot the app's module as a Nest application context (no HTTP) and call `start(server)`. Each job runs
 * through the `McpTaskExecutor` of that server — the same guards, interceptors, pipes and handler as a call; status,
 * questions, cancels and the result go through the task store and the event bus, so the instance that took the call
 * may restart meanwhile.
 *
 * A task runs at most once: a BullMQ job gets one attempt and no stalled-job retry (`maxStalledCount: 0`,
 * `maxStartedAttempts: 1`). A worker that dies mid-task leaves a job whose hold lapses; the next check (by any worker
 * of the queue) fails the task rather than run its handler again — a tool call is not assumed idempotent, and the tasks
 * utility lets a task fail, not run twice unseen. `close()` (also at the application's shutdown) stops taking jobs and
 * stops the running ones: their tasks end `failed`; jobs still waiting stay queued for another worker.
 *
 * @example
 * const app = await NestFactory.createApplicationContext(AppModule);
 * app.enableShutdownHooks();
 * await app.get(McpTaskWorker).start('reports', { concurrency: 4 });
 */
@Injectable()
export class McpTaskWorker implements BeforeApplicationShutdown {
  private readonly running = new Map<string, Running>();
  private readonly logger = new Logger('McpTaskWorker');

  constructor(
    private readonly redis: McpRedis,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** The servers whose tasks this worker runs now. */
  get servers(): string[] {
    return [...this.running.keys()];
  }

  /**
   * Starts taking the queued tasks of `server` (the name given to `McpModule.forRoot`); resolves once connected.
   * Rejects when the app has no such server, when it runs already, or when Redis is not reachable in time.
   */
  async start(server: string, options: McpTaskWorkerOptions = {}): Promise<void> {
    const settings = resolveOptions(options);
    const executor = this.executorOf(server);
    if (this.running.has(server)) throw new Error(`McpTaskWorker: the tasks of server "${server}" run already`);
    const { prefix, name } = taskQueueLocation(this.redis.keyPrefix, server);
    const controllers = new Set<AbortController>();
    // Jobs whose handler threw (a malformed job): failed by BullMQ with that error, not given up.
    const thrown = new WeakSet<Job>();
    const running: Running = {
      worker: undefined!,
      controllers,
      closing: false,
      closeTimeoutMs: settings.closeTimeoutMs,
    };
    const worker = new Worker<McpTaskJob>(
      name,
      async (job) => {
        const controller = new AbortController();
        // Taken as the worker closes: it ends at once, failed, rather than start a task nothing will see through.
        if (running.closing) controller.abort(new Error(SHUT_DOWN));
        controllers.add(controller);
        try {
          await executor.execute(job.data, controller.signal);
        } catch (error) {
          thrown.add(job);
          throw error;
        } finally {
          controllers.delete(controller);
        }
      },
      {
        connection: bullConnection(this.redis.workerConnectionOptions()),
        prefix,
        concurrency: settings.concurrency,
        lockDuration: settings.lockDurationMs,
        stalledInterval: settings.stalledIntervalMs,
        maxStalledCount: 0,
        maxStartedAttempts: 1,
      },
    );
    running.worker = worker;
    worker.on('failed', (job: Job<McpTaskJob> | undefined, error: Error) => {
      if (!job) return;
      if (thrown.has(job)) return this.logger.error(`A task job failed: ${error.message}`);
      // BullMQ gave it up without running it to its end (its worker stopped): the task fails, once.
      executor.fail(job.data, GIVEN_UP).catch((failure: unknown) => {
        this.logger.error(`A given-up task could not be marked failed: ${messageOf(failure)}`);
      });
    });
    let lastError: string | undefined;
    worker.on('error', (error: Error) => {
      if (error.message === lastError) return;
      lastError = error.message;
      this.logger.warn(`Task queue of server "${server}": ${error.message}`);
    });
    this.running.set(server, running);
    try {
      await withTimeout(
        worker.waitUntilReady(),
        settings.readyTimeoutMs,
        `McpTaskWorker: Redis not reachable within ${settings.readyTimeoutMs} ms`,
      );
    } catch (error) {
      this.running.delete(server);
      await worker.close(true).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Stops taking jobs and stops the running tasks (they end `failed`: "The worker shut down before the task
   * ended"), waiting (bounded) until their end is recorded; jobs not started stay queued. Idempotent.
   */
  async close(): Promise<void> {
    const closing = [...this.running.values()];
    this.running.clear();
    await Promise.all(closing.map((running) => this.stop(running)));
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private async stop(running: Running): Promise<void> {
    running.closing = true;
    const closed = running.worker.close();
    for (const controller of running.controllers) controller.abort(new Error(SHUT_DOWN));
    try {
      await withTimeout(closed, running.closeTimeoutMs, 'closing timed out');
    } catch (error) {
      this.logger.warn(`The task worker did not close in time (${messageOf(error)}): closing it regardless`);
      await running.worker.close(true).catch(() => undefined);
    }
  }

  // The executor of `server`: each McpModule of the app provides its own.
  private executorOf(server: string): McpTaskExecutor {
    if (typeof server !== 'string' || server.length === 0)
      throw new Error('McpTaskWorker: start(server) needs the name of an MCP server of this app');
    let executors: McpTaskExecutor[];
    try {
      executors = this.moduleRef.get(McpTaskExecutor, { strict: false, each: true });
    } catch {
      executors = [];
    }
    const executor = executors.find((candidate) => candidate.server === server);
    if (executor) return executor;
    const known = executors.map((candidate) => `"${candidate.server}"`).join(', ') || 'none (import McpModule)';
    throw new Error(`McpTaskWorker: this app has no MCP server "${server}" (its servers: ${known})`);
  }
}

function resolveOptions(options: McpTaskWorkerOptions): Required<McpTaskWorkerOptions> {
  const resolved = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as Array<keyof McpTaskWorkerOptions>) {
    const value = options[key];
    if (value === undefined) continue;
    const max = key === 'concurrency' ? MAX_CONCURRENCY : MAX_MS;
    if (!Number.isSafeInteger(value) || value < 1 || value > max)
      throw new Error(`McpTaskWorker: ${key} must be an integer from 1 to ${max}`);
    resolved[key] = value;
  }
  return resolved;
}

// ioredis 6 options as BullMQ types them (it knows no `retryStrategy: null`).
function bullConnection(options: RedisOptions): ConnectionOptions {
  return { ...options, retryStrategy: options.retryStrategy ?? undefined };
}

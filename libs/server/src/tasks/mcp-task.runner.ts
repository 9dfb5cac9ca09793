import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CallToolResult, ClientCapabilities, Era, ErrorCode, SchemaValidator } from '@conduit-mcp/core';
import { McpInput } from '../context/mcp-input.interface';
import { toWireError } from '../dispatch/error.mapper';
import { McpAbortedError } from '../errors/mcp-aborted.error';
import { McpTaskEvent } from '../telemetry/mcp.channels';
import { McpTelemetry } from '../telemetry/mcp.telemetry';
import { TERMINAL_TASK_STATUSES, TaskPage, TaskRecord, TaskStore } from './task.store';
import { ModernTaskInput } from './task-input';

/** Bounds and defaults of the tasks a server runs. */
export interface McpTaskLimits {
  /** Retention of a task whose request names none. Default 1 hour. */
  defaultTtlMs?: number;
  /** Longest retention a request may ask for (more is clamped). Default 24 hours. */
  maxTtlMs?: number;
  /** The polling interval suggested to clients. Default 1 000 ms. */
  pollIntervalMs?: number;
  /** Most tasks running at once on this instance; past it no task is created. Default 100. */
  maxRunning?: number;
}

export const DEFAULT_TASK_LIMITS: Required<McpTaskLimits> = {
  defaultTtlMs: 60 * 60_000,
  maxTtlMs: 24 * 60 * 60_000,
  pollIntervalMs: 1_000,
  maxRunning: 100,
};

/** The shortest retention a request may ask for: less would expire before a client could poll it. */
const MIN_TTL_MS = 1_000;

/** The injection token of the task limits (the module's `tasks` option). */
export const MCP_TASK_LIMITS = Symbol('MCP_TASK_LIMITS');

/** What a running task's handler gets: its id, its cancellation and, in the modern era, its questions. */
export interface RunningTask {
  taskId: string;
  signal: AbortSignal;
  input: McpInput;
}

/** A tool call to run as a task. */
export interface TaskLaunch {
  owner: string;
  server: string;
  era: Era;
  tool: string;
  /** The retention the request asked for (legacy `task.ttl`); clamped to the limits. */
  ttlMs?: number;
  /** The capabilities of the request that creates the task: what its questions may ask (modern). */
  clientCapabilities: ClientCapabilities;
  /**
   * The legacy era's questions (server-to-client requests tied to the task), told to call `asking(+1)` when one
   * starts and `asking(-1)` when it ends; the modern era's are the runner's.
   */
  input?: (task: { taskId: string; signal: AbortSignal; asking(delta: 1 | -1): void }) => McpInput;
  /** Told each time the task's status changed after its creation (the legacy era's status notifications). */
  onStatus?(task: TaskRecord): void;
  /** Runs the tool; resolves its result, or rejects with the error a plain call would answer. */
  run(task: RunningTask): Promise<CallToolResult>;
}

interface Running {
  owner: string;
  /** What its telemetry events name, and when it began (a `performance.now()` reading). */
  scope: { server: string; tool: string; era: Era };
  started: number;
  /** Whether it waits for answers (`input_required`); how many legacy questions wait. */
  waiting: boolean;
  questions: number;
  /** The status the legacy questions last asked for, and the store writes of it, in order. */
  asked: boolean;
  writes: Promise<unknown>;
  onStatus: ((task: TaskRecord) => void) | undefined;
  /** Resolved when it stops running here (ended, cancelled, expired, shut down). */
  over: Promise<void>;
  finish: () => void;
  controller: AbortController;
  input: McpInput;
  expiry: NodeJS.Timeout;
}

/**
 * Runs tool calls as tasks on this instance: creates the task in the `TaskStore` (bound to its owner), runs the
 * handler detached from the request that created it, and records how it ended — by the era that created it: a tool
 * error is `completed` in the modern era (the tasks extension) and `failed` in 2025-11-25; a JSON-RPC error is
 * `failed` with that error. Cancelling marks the task `cancelled` at once and aborts its handler; a task past its
 * retention is aborted and dropped; at shutdown the tasks still running are marked `failed`.
 */
@Injectable()
export class McpTaskRunner implements OnApplicationShutdown {
  private readonly running = new Map<string, Running>();
  private readonly limits: Required<McpTaskLimits>;

  constructor(
    @Inject(TaskStore) private readonly store: TaskStore,
    private readonly schemas: SchemaValidator,
    @Inject(MCP_TASK_LIMITS) limits: McpTaskLimits | undefined,
    private readonly telemetry: McpTelemetry = new McpTelemetry(),
  ) {
    this.limits = { ...DEFAULT_TASK_LIMITS, ...definedOnly(limits ?? {}) };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(value) || value < 1) throw new Error(`tasks.${name} must be a positive integer`);
    }
  }

  /** How many tasks run on this instance now. */
  get size(): number {
    return this.running.size;
  }

  /**
   * Creates the task and starts its handler; resolves the task as created, or undefined when no task can be made
   * (as many running as `maxRunning`, or the store full for this owner or in all): the caller decides then.
   */
  async start(launch: TaskLaunch): Promise<TaskRecord | undefined> {
    if (this.running.size >= this.limits.maxRunning) return undefined;
    const now = Date.now();
    const ttlMs = Math.min(Math.max(launch.ttlMs ?? this.limits.defaultTtlMs, MIN_TTL_MS), this.limits.maxTtlMs);
    const record: TaskRecord = {
      taskId: randomUUID(),
      owner: launch.owner,
      server: launch.server,
      method: 'tools/call',
      era: launch.era,
      tool: launch.tool,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      expiresAt: now + ttlMs,
      pollIntervalMs: this.limits.pollIntervalMs,
    };
    const { taskId, owner } = record;
    const controller = new AbortController();
    const { signal } = controller;
    const input =
      launch.input?.({ taskId, signal, asking: (delta) => this.asking(taskId, delta) }) ??
      new ModernTaskInput(
        launch.clientCapabilities,
        this.schemas,
        (outstanding) => this.publishQuestions(owner, taskId, outstanding),
        signal,
      );
    // Held before the store is asked: two launches at the bound cannot both pass it.
    const expiry = setTimeout(() => this.expire(taskId), ttlMs).unref();
    const scope = { server: launch.server, tool: launch.tool, era: launch.era };
    let finish!: () => void;
    const over = new Promise<void>((resolve) => (finish = resolve));
    const entry: Running = {
      owner,
      scope,
      started: performance.now(),
      waiting: false,
      questions: 0,
      asked: false,
      writes: Promise.resolve(),
      onStatus: launch.onStatus,
      over,
      finish,
      controller,
      input,
      expiry,
    };
    this.running.set(taskId, entry);
    let created = false;
    try {
      created = await this.store.create(record);
    } finally {
      if (!created) this.forget(taskId);
    }
    if (!created) return undefined;
    this.telemetry.task(() => ({ ...scope, type: 'created', status: 'working' }));
    void this.execute(launch, record, entry);
    return record;
  }

  /** The task as it is now; undefined when unknown, expired or another owner's. */
  get(owner: string, taskId: string): Promise<TaskRecord | undefined> {
    return this.store.get(owner, taskId);
  }

  /**
   * The task once it is terminal (2025-11-25 `tasks/result`): undefined when unknown to its owner, or when it expired
   * meanwhile. Rejects when `signal` aborts. A task running elsewhere (another instance) is polled at its interval.
   */
  async settled(owner: string, taskId: string, signal: AbortSignal): Promise<TaskRecord | undefined> {
    for (;;) {
      const task = await this.store.get(owner, taskId);
      if (!task || TERMINAL_TASK_STATUSES.has(task.status)) return task;
      const running = this.running.get(taskId);
      await until(running?.over, task.pollIntervalMs ?? this.limits.pollIntervalMs, signal);
    }
  }

  /** One page of the owner's tasks, newest first; undefined for a cursor the store did not make. */
  list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined> {
    return this.store.list(owner, cursor, limit);
  }

  /**
   * Answers questions of a modern task (`tasks/update`); false when the task is unknown to its owner. A task known
   * but not running here (ended, or run by another instance) takes nothing: the answers are ignored, as for keys
   * not outstanding.
   */
  async answer(owner: string, taskId: string, responses: Record<string, unknown>): Promise<boolean> {
    const task = await this.store.get(owner, taskId);
    if (!task) return false;
    const running = this.running.get(taskId);
    if (running?.owner === owner && running.input instanceof ModernTaskInput) await running.input.answer(responses);
    return true;
  }

  /**
   * Cancels a task: `cancelled` in the store before this resolves, its handler's signal aborted, its questions ended.
   * Resolves the task as it now is (a terminal one unchanged), or undefined when unknown to its owner.
   */
  async cancel(owner: string, taskId: string): Promise<TaskRecord | undefined> {
    const task = await this.store.cancel(owner, taskId, 'Cancelled by the client');
    if (!task) return undefined;
    const running = this.running.get(taskId);
    if (running?.owner === owner) {
      this.stop(taskId, running, new McpAbortedError('Task cancelled'));
      this.ended(running, { status: 'cancelled' });
      if (task.status === 'cancelled') running.onStatus?.(task);
    }
    return task;
  }

  /** Marks every task still running here `failed` and aborts it: nothing will finish them after this process. */
  async onApplicationShutdown(): Promise<void> {
    const failure = { code: ErrorCode.InternalError, message: 'The server shut down before the task ended' };
    await Promise.all(
      [...this.running].map(async ([taskId, running]) => {
        this.stop(taskId, running, new McpAbortedError(failure.message));
        this.ended(running, { status: 'failed', errorCode: failure.code });
        await this.store
          .update(running.owner, taskId, { status: 'failed', statusMessage: failure.message, error: failure })
          .catch(() => undefined);
      }),
    );
  }

  private async execute(launch: TaskLaunch, record: TaskRecord, entry: Running): Promise<void> {
    const { taskId, owner } = record;
    const { signal } = entry.controller;
    let ending: Parameters<TaskStore['update']>[2];
    try {
      const result = await launch.run({ taskId, signal, input: entry.input });
      const failed = launch.era === 'legacy' && result.isError === true;
      ending = { status: failed ? 'failed' : 'completed', result, inputRequests: undefined };
    } catch (error) {
      const wire = toWireError(error);
      const failure = {
        code: wire.code,
        message: wire.message,
        ...(wire.data === undefined ? {} : { data: wire.data }),
      };
      ending = { status: 'failed', statusMessage: wire.message, error: failure, inputRequests: undefined };
    } finally {
      this.forget(taskId, false);
    }
    // Cancelled (or expired, or shut down) meanwhile: the store refuses to change a terminal task.
    if (signal.aborted) return entry.finish();
    const updated = await this.store.update(owner, taskId, ending).catch(() => undefined);
    // Those waiting for the end (tasks/result) read the store now that it holds the end.
    entry.finish();
    if (!updated) return;
    this.ended(entry, { status: updated.status, errorCode: updated.error?.code });
    entry.onStatus?.(updated);
  }

  private async publishQuestions(owner: string, taskId: string, outstanding: Record<string, unknown>): Promise<void> {
    const waiting = Object.keys(outstanding).length > 0;
    const updated = await this.store.update(owner, taskId, {
      status: waiting ? 'input_required' : 'working',
      inputRequests: waiting ? (outstanding as TaskRecord['inputRequests']) : undefined,
    });
    if (updated) this.statusChanged(taskId, waiting, updated);
  }

  // A legacy question starts or ends: the task is `input_required` from the first one to the last one's end.
  private asking(taskId: string, delta: 1 | -1): void {
    const running = this.running.get(taskId);
    if (!running) return;
    running.questions += delta;
    const waiting = running.questions > 0;
    if (waiting === running.asked) return;
    running.asked = waiting;
    running.writes = running.writes
      .then(() => this.store.update(running.owner, taskId, { status: waiting ? 'input_required' : 'working' }))
      .then((updated) => updated && this.statusChanged(taskId, waiting, updated))
      .catch(() => undefined);
  }

  // The status changes when the first question is asked or the last one answered, not with every question.
  private statusChanged(taskId: string, waiting: boolean, updated: TaskRecord): void {
    const running = this.running.get(taskId);
    if (!running || running.waiting === waiting) return;
    running.waiting = waiting;
    this.telemetry.task(() => ({ ...running.scope, type: 'status', status: updated.status }));
    running.onStatus?.(updated);
  }

  private expire(taskId: string): void {
    const running = this.running.get(taskId);
    if (!running) return;
    this.stop(taskId, running, new McpAbortedError('Task expired'));
    this.ended(running, { status: 'failed', expired: true });
  }

  private ended(running: Running, how: Pick<McpTaskEvent, 'status' | 'errorCode' | 'expired'>): void {
    this.telemetry.task(() => {
      const event: McpTaskEvent = { ...running.scope, type: 'status', status: how.status };
      if (how.errorCode !== undefined) event.errorCode = how.errorCode;
      if (how.expired) event.expired = true;
      event.durationMs = McpTelemetry.since(running.started);
      return event;
    });
  }

  private stop(taskId: string, running: Running, reason: Error): void {
    this.forget(taskId);
    running.controller.abort(reason);
    if (running.input instanceof ModernTaskInput) running.input.end(reason);
  }

  // `finished`: tell those waiting for the end now (false: the caller does, once the store holds the end).
  private forget(taskId: string, finished = true): void {
    const running = this.running.get(taskId);
    if (!running) return;
    clearTimeout(running.expiry);
    this.running.delete(taskId);
    if (finished) running.finish();
  }
}

// Waits for `over` (when given) or `ms`, whichever comes first; rejects when `signal` aborts.
function until(over: Promise<void> | undefined, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const done = () => (clearTimeout(timer), signal.removeEventListener('abort', onAbort), resolve());
    const onAbort = () => (clearTimeout(timer), reject(signal.reason as Error));
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', onAbort, { once: true });
    void over?.then(done);
  });
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CallToolResult, ClientCapabilities, Era, ErrorCode, McpError, SchemaValidator } from '@conduit-mcp/core';
import { McpInput } from '../context/mcp-input.interface';
import { McpAbortedError } from '../errors/mcp-aborted.error';
import type { InputRequest } from '../eras/modern/mrtr/input-question';
import { McpBusEvent, McpEventBus } from '../events/mcp-event.bus';
import { McpTaskEvent } from '../telemetry/mcp.channels';
import { McpTelemetry } from '../telemetry/mcp.telemetry';
import { abandonedEnding, taskEnding } from './task.ending';
import { TaskFollowers } from './task.followers';
import { McpTaskJob, McpTaskQueue } from './task.queue';
import { TERMINAL_TASK_STATUSES, TaskChanges, TaskPage, TaskRecord, TaskStore } from './task.store';
import { ModernTaskInput, checkResponses } from './task-input';

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
  /**
   * A durable tool's call (`@McpTool({ durable: true })`): what a worker needs to run it. With a task queue
   * (`McpModule.forRoot({ taskQueue })`) the task is queued for a worker and `run` is not called here; without one
   * the task runs here like any other.
   */
  durable?: DurableCall;
}

/** What a queued job carries beyond the task's own fields. */
export type DurableCall = Pick<McpTaskJob, 'protocolVersion' | 'arguments' | 'clientInfo' | 'transport' | 'auth'>;

/** A bus event about a task (`task-cancel`, `task-answers`, `task-status`). */
type TaskBusEvent = Extract<McpBusEvent, { type: 'task-cancel' | 'task-answers' | 'task-status' }>;

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
  /** The store write of its failure, when it was stopped as failed (shutdown, a worker's run given up). */
  failing?: Promise<TaskRecord | undefined>;
}

/**
 * Runs tool calls as tasks on this instance: creates the task in the `TaskStore` (bound to its owner), runs the
 * handler detached from the request that created it, and records how it ended — by the era that created it: a tool
 * error is `completed` in the modern era (the tasks extension) and `failed` in 2025-11-25; a JSON-RPC error is
 * `failed` with that error. Cancelling marks the task `cancelled` at once and aborts its handler; a task past its
 * retention is aborted and dropped; at shutdown the tasks still running are marked `failed`.
 *
 * A durable tool's task, with a task queue, is created here and queued for a worker, whose runner `adopt`s it. Tasks
 * reach across instances through the event bus: cancelling or answering a task that does not run here publishes
 * `task-cancel` / `task-answers`, which the runner running it applies; a worker announces each change of status
 * (`task-status`) to the instance that queued the task, which tells the task's status listeners.
 */
@Injectable()
export class McpTaskRunner implements OnModuleInit, OnApplicationShutdown {
  private readonly running = new Map<string, Running>();
  private readonly limits: Required<McpTaskLimits>;
  private readonly followers: TaskFollowers;
  private readonly logger = new Logger('McpTaskRunner');
  private unsubscribe: (() => void) | undefined;

  constructor(
    @Inject(TaskStore) private readonly store: TaskStore,
    private readonly schemas: SchemaValidator,
    @Inject(MCP_TASK_LIMITS) limits: McpTaskLimits | undefined,
    private readonly telemetry: McpTelemetry = new McpTelemetry(),
    @Optional() @Inject(McpEventBus) private readonly bus: McpEventBus | null = null,
    @Optional() @Inject(McpTaskQueue) private readonly queue: McpTaskQueue | null = null,
  ) {
    this.limits = { ...DEFAULT_TASK_LIMITS, ...definedOnly(limits ?? {}) };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(value) || value < 1) throw new Error(`tasks.${name} must be a positive integer`);
    }
    this.followers = new TaskFollowers(store);
  }

  /** Listens on the bus for the tasks of other instances' requests (cancels, answers, status changes). */
  onModuleInit(): void {
    this.unsubscribe ??= this.bus?.subscribe((event) => {
      if (event.type === 'task-cancel' || event.type === 'task-answers' || event.type === 'task-status')
        this.onTaskEvent(event);
    });
  }

  /** How many tasks run on this instance now. */
  get size(): number {
    return this.running.size;
  }

  /** Whether durable tools' tasks go to a task queue (else they run here). */
  get queuesDurable(): boolean {
    return Boolean(this.queue);
  }

  /**
   * Creates the task and starts its handler; resolves the task as created, or undefined when no task can be made
   * (as many running as `maxRunning`, or the store full for this owner or in all): the caller decides then.
   */
  async start(launch: TaskLaunch): Promise<TaskRecord | undefined> {
    if (launch.durable && this.queue) return this.enqueue(launch, launch.durable, this.queue);
    if (this.running.size >= this.limits.maxRunning) return undefined;
    const record = this.recordOf(launch);
    // Held before the store is asked: two launches at the bound cannot both pass it.
    const entry = this.enter(record, launch);
    let created = false;
    try {
      created = await this.store.create(record);
    } finally {
      if (!created) this.forget(record.taskId);
    }
    if (!created) return undefined;
    this.telemetry.task(() => ({ ...entry.scope, type: 'created', status: 'working' }));
    void this.execute(launch, record, entry);
    return record;
  }

  /**
   * Runs here a task created elsewhere — a durable tool's task a worker took from the queue: the record as the store
   * holds it, the handler through `launch.run`, the end recorded as for a task started here. Resolves once the task no
   * longer runs here, its end recorded (at once for a task that ended meanwhile, or already runs here). `signal`
   * aborting stops it as `failed`, its reason's message the task's (a worker shutting down). Not bounded by
   * `maxRunning`: the worker bounds what it takes.
   */
  async adopt(record: TaskRecord, launch: TaskLaunch, signal: AbortSignal): Promise<void> {
    if (this.running.has(record.taskId) || TERMINAL_TASK_STATUSES.has(record.status)) return;
    if (record.expiresAt <= Date.now()) return;
    const entry = this.enter(record, launch);
    const { taskId } = record;
    const onAbort = () => {
      if (this.running.get(taskId) !== entry) return;
      entry.failing = this.fail(taskId, entry, abortMessage(signal.reason)).then((updated) => {
        if (updated) launch.onStatus?.(updated);
        return updated;
      });
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (!signal.aborted) await Promise.race([this.execute(launch, record, entry), entry.over]);
      await entry.failing;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Marks a task that does not run here `failed` with `message` (a worker's run that cannot go on: a stalled job);
   * undefined when it ended already, or is unknown to `owner`.
   */
  async abandon(owner: string, taskId: string, message: string): Promise<TaskRecord | undefined> {
    const running = this.running.get(taskId);
    if (running?.owner === owner) return this.fail(taskId, running, message);
    return this.store.update(owner, taskId, abandonedEnding(message));
  }

  // The task as created: working, its retention clamped to the limits.
  private recordOf(launch: TaskLaunch): TaskRecord {
    const now = Date.now();
    const ttlMs = Math.min(Math.max(launch.ttlMs ?? this.limits.defaultTtlMs, MIN_TTL_MS), this.limits.maxTtlMs);
    return {
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
  }

  /**
   * A durable tool's task: created in the store, then queued for a worker. A queue that refuses it ends the task
   * `failed` (the answer shows it so), as a handler's failure would.
   */
  private async enqueue(launch: TaskLaunch, call: DurableCall, queue: McpTaskQueue): Promise<TaskRecord | undefined> {
    const record = this.recordOf(launch);
    if (!(await this.store.create(record))) return undefined;
    const scope = { server: launch.server, tool: launch.tool, era: launch.era };
    this.telemetry.task(() => ({ ...scope, type: 'created', status: 'working' }));
    const job: McpTaskJob = {
      taskId: record.taskId,
      owner: record.owner,
      server: record.server,
      tool: launch.tool,
      era: launch.era,
      protocolVersion: call.protocolVersion,
      arguments: call.arguments,
      clientCapabilities: launch.clientCapabilities,
      transport: call.transport,
      createdAt: record.createdAt,
    };
    if (call.clientInfo !== undefined) job.clientInfo = call.clientInfo;
    if (call.auth !== undefined) job.auth = call.auth;
    // Followed before it is queued: a worker may announce its first change at once.
    if (launch.onStatus) this.followers.follow(record, launch.onStatus);
    try {
      await queue.enqueue(job);
    } catch (error) {
      this.followers.forget(record.taskId);
      this.logger.warn(`A task of tool ${launch.tool} could not be queued: ${messageOf(error)}`);
      const failed = await this.store
        .update(record.owner, record.taskId, abandonedEnding('The task could not be queued for a worker'))
        .catch(() => undefined);
      this.telemetry.task(() => ({ ...scope, type: 'status', status: 'failed', errorCode: ErrorCode.InternalError }));
      return failed ?? record;
    }
    return record;
  }

  // Registers a task as running here: its cancellation, its questions, its expiry.
  private enter(record: TaskRecord, launch: TaskLaunch): Running {
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
    const expiry = setTimeout(() => this.expire(taskId), Math.max(0, record.expiresAt - Date.now())).unref();
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
    return entry;
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
   * Answers questions of a modern task (`tasks/update`); false when the task is unknown to its owner. For a task
   * that runs elsewhere (another instance, a worker) the answers are checked against the questions the store shows
   * outstanding and passed on through the bus (`task-answers`); an invalid one refuses them all (-32602), keys not
   * outstanding are ignored, and a bus that cannot take them is -32603 (the client sends them again).
   */
  async answer(owner: string, taskId: string, responses: Record<string, unknown>): Promise<boolean> {
    const task = await this.store.get(owner, taskId);
    if (!task) return false;
    const running = this.running.get(taskId);
    if (running?.owner === owner) {
      if (running.input instanceof ModernTaskInput) await running.input.answer(responses);
      return true;
    }
    const outstanding = task.status === 'input_required' ? task.inputRequests : undefined;
    if (!outstanding || !this.bus) return true;
    const questionOf = (key: string) =>
      Object.hasOwn(outstanding, key) ? (outstanding[key] as InputRequest) : undefined;
    const accepted = checkResponses(questionOf, responses, this.schemas);
    if (!accepted.length) return true;
    const relayed = Object.fromEntries(accepted.map(({ key, response }) => [key, response]));
    const event: McpBusEvent = { type: 'task-answers', server: task.server, taskId, owner, responses: relayed };
    await this.bus.publish(event).catch((error: unknown) => {
      this.logger.warn(`Answers to a task could not be passed on: ${messageOf(error)}`);
      throw new McpError(ErrorCode.InternalError, 'The answers could not be passed on to the task: send them again');
    });
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
    } else if (task.status === 'cancelled') {
      // It runs elsewhere, or waits in the queue (a worker skips a task cancelled meanwhile): its runner aborts it.
      this.followers.told(task);
      await this.bus?.publish({ type: 'task-cancel', server: task.server, taskId, owner }).catch((error: unknown) => {
        this.logger.warn(`The cancel of a task could not be passed on (it stays cancelled): ${messageOf(error)}`);
      });
    }
    return task;
  }

  /** Marks every task still running here `failed` and aborts it: nothing will finish them after this process. */
  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.followers.clear();
    const message = 'The server shut down before the task ended';
    await Promise.all([...this.running].map(([taskId, running]) => this.fail(taskId, running, message)));
  }

  // A task event of the bus: a task running here cancelled or answered on another instance; a queued task's change.
  private onTaskEvent(event: TaskBusEvent): void {
    if (event.type === 'task-status') {
      void this.followers.changed(event.server, event.owner, event.taskId);
      return;
    }
    const running = this.running.get(event.taskId);
    if (!running || running.owner !== event.owner || running.scope.server !== event.server) return;
    if (event.type === 'task-cancel') {
      this.stop(event.taskId, running, new McpAbortedError('Task cancelled'));
      this.ended(running, { status: 'cancelled' });
    } else if (running.input instanceof ModernTaskInput) {
      // Checked by the instance that took them; a question answered meanwhile just ignores its key.
      running.input.answer(event.responses).catch(() => undefined);
    }
  }

  // Stops a task running here as failed with `message`: aborted, then `failed` in the store (unless it ended).
  private fail(taskId: string, running: Running, message: string): Promise<TaskRecord | undefined> {
    this.stop(taskId, running, new McpAbortedError(message));
    this.ended(running, { status: 'failed', errorCode: ErrorCode.InternalError });
    return this.store.update(running.owner, taskId, abandonedEnding(message)).catch(() => undefined);
  }

  private async execute(launch: TaskLaunch, record: TaskRecord, entry: Running): Promise<void> {
    const { taskId, owner } = record;
    const { signal } = entry.controller;
    let ending: TaskChanges;
    try {
      ending = taskEnding(launch.era, { result: await launch.run({ taskId, signal, input: entry.input }) });
    } catch (error) {
      ending = taskEnding(launch.era, { error });
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

// The message a task fails with when the signal that stops it aborts (a worker shutting down).
function abortMessage(reason: unknown): string {
  return reason instanceof Error && reason.message ? reason.message : 'The task was stopped before it ended';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

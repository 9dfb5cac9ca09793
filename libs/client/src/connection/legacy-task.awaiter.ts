import { CallToolResult, JsonRpcId, isJsonObject } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { McpTaskCancelledError, McpTaskFailedError } from '../errors/mcp-task.error';
import { McpCallOptions } from './mcp-call-options';
import { McpAwaitTaskOptions, McpTaskInfo } from './mcp-task.types';
import { FINAL_STATUSES, isUnknownTask, readTaskInfo, unknownTask } from './task-info.reader';
import { TaskStatusFeed } from './task-status.feed';
import { MAX_TIMER_MS, TaskWait, pause, pollDelay } from './task-wait';
import { TaskWatches } from './task-watches';

/** How long `tasks/result` may outlast the task's retention by default: clocks differ and answers take time. */
const RESULT_MARGIN_MS = 30_000;

/** What the legacy awaiter needs of its connection. */
export interface LegacyTaskHost {
  send(
    method: string,
    params: Record<string, unknown>,
    options: McpCallOptions,
    id?: JsonRpcId,
  ): Promise<Record<string, unknown>>;
  newId(): JsonRpcId;
  readonly watches: TaskWatches;
}

/** One wait's view of its task, shared by the result call, the polls and the notifications. */
interface Watch {
  taskId: string;
  wait: TaskWait;
  feed: TaskStatusFeed;
  /** Aborted when the task is seen ending without `tasks/result` saying so (cancelled, or gone). */
  ended: AbortController;
  /** What the requests of the wait heed: the caller's limits and the task's end. */
  signal: AbortSignal;
}

/**
 * Legacy era (2025-11-25 tasks): waits for a task with one `tasks/result` request, which the server holds open until
 * the task ends and on whose stream it asks the task's questions (answered by the usual `@OnElicitation`,
 * `@OnSampling`, `@OnRoots` handlers, the request counting as a call in flight). Meanwhile `tasks/get` is polled at
 * the server's interval, and `notifications/tasks/status` followed, for `onStatus` and to notice a cancelled task.
 * `tasks/result` answers the tool's result (a tool error included, though the task is `failed` then) or the call's
 * JSON-RPC error. Its deadline is the wait's `timeout`, else the task's retention and a margin (never the usual 60 s).
 */
export class LegacyTaskAwaiter {
  constructor(
    private readonly host: LegacyTaskHost,
    private readonly requestTimeoutMs: number,
  ) {}

  async await(taskId: string, options: McpAwaitTaskOptions = {}): Promise<CallToolResult> {
    const wait = new TaskWait(taskId, options);
    const ended = new AbortController();
    const watch: Watch = {
      taskId,
      wait,
      feed: new TaskStatusFeed(options.onStatus),
      ended,
      signal: AbortSignal.any([wait.signal, ended.signal]),
    };
    const resultCall = this.host.newId();
    const unwatch = this.host.watches.watch(taskId, {
      resultCall,
      onStatus: (wire) => this.notified(watch, wire),
    });
    const polls = new AbortController();
    try {
      const first = await this.get(watch, watch.signal);
      this.observe(watch, first);
      if (watch.signal.aborted) throw watch.signal.reason;
      const result = this.host.send(
        'tasks/result',
        { taskId },
        { signal: watch.signal, timeout: this.resultTimeout(first, options), assigns: options.assigns },
        resultCall,
      );
      void this.poll(watch, first, AbortSignal.any([watch.signal, polls.signal]));
      try {
        return (await result) as CallToolResult;
      } catch (error) {
        throw watch.signal.aborted ? watch.signal.reason : await this.resultError(watch, error);
      }
    } catch (error) {
      throw wait.reasonFor(error);
    } finally {
      polls.abort();
      unwatch();
      wait.end();
    }
  }

  private resultTimeout(task: McpTaskInfo, options: McpAwaitTaskOptions): number {
    // The wait's own timeout stops the request through its signal.
    if (options.timeout !== undefined || task.ttlMs === null) return MAX_TIMER_MS;
    const created = Date.parse(task.createdAt);
    const left = (Number.isNaN(created) ? Date.now() : created) + task.ttlMs - Date.now();
    return Math.min(MAX_TIMER_MS, Math.max(0, left) + RESULT_MARGIN_MS);
  }

  /** Polls until the task is final or the wait ends; a failed poll is tried again (`tasks/result` is what counts). */
  private async poll(watch: Watch, first: McpTaskInfo, signal: AbortSignal): Promise<void> {
    let task = first;
    while (!FINAL_STATUSES.has(task.status)) {
      try {
        await pause(pollDelay(task), signal);
        task = await this.get(watch, signal);
        this.observe(watch, task);
      } catch (error) {
        if (signal.aborted) return;
        // Gone (expired): tasks/result will not answer any more.
        if (isUnknownTask(error)) return watch.ended.abort(error);
      }
    }
  }

  /** A view of the task, from a poll or a notification; a cancelled task ends the wait. */
  private observe(watch: Watch, task: McpTaskInfo): void {
    if (!watch.feed.see(task) || task.status !== 'cancelled') return;
    watch.ended.abort(new McpTaskCancelledError(watch.taskId, task.statusMessage));
  }

  private notified(watch: Watch, wire: Record<string, unknown>): void {
    let task: McpTaskInfo;
    try {
      task = readTaskInfo(wire, 'legacy', 'notifications/tasks/status');
    } catch {
      return; // a notification that is not a task tells nothing
    }
    this.observe(watch, task);
  }

  private async get(watch: Watch, signal: AbortSignal): Promise<McpTaskInfo> {
    try {
      const task = await this.host.send(
        'tasks/get',
        { taskId: watch.taskId },
        { signal, timeout: watch.wait.requestTimeout(this.requestTimeoutMs) },
      );
      return readTaskInfo(task, 'legacy', 'tasks/get');
    } catch (error) {
      if (isUnknownTask(error)) throw unknownTask(watch.taskId, error.data);
      throw error;
    }
  }

  /**
   * What a JSON-RPC error of `tasks/result` means. The task's own error (it failed) and the server's refusal (-32602:
   * no such task) come alike, so the task's status tells them apart: one more `tasks/get` unless a poll saw it fail.
   */
  private async resultError(watch: Watch, error: unknown): Promise<unknown> {
    if (!(error instanceof McpClientError) || error.kind !== 'rpc' || error.code === undefined) return error;
    const { taskId, feed } = watch;
    if (isJsonObject(error.data) && error.data.status === 'cancelled') return new McpTaskCancelledError(taskId);
    let task = feed.latest;
    if (task?.status !== 'failed') {
      try {
        task = await this.get(watch, watch.wait.signal);
        feed.see(task);
      } catch (lookup) {
        if (isUnknownTask(lookup)) return lookup;
      }
    }
    if (task?.status === 'cancelled') return new McpTaskCancelledError(taskId, task.statusMessage);
    return new McpTaskFailedError(taskId, error.code, error.message, error.data);
  }
}

import { CallToolResult, ErrorCode, isJsonObject } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { McpTaskCancelledError } from '../errors/mcp-task.error';
import { InputAnswerHost, answerInputRequests } from './input-requests.answerer';
import { McpCallOptions } from './mcp-call-options';
import { McpAwaitTaskOptions } from './mcp-task.types';
import { failureOf, readTaskInfo, unknownTask } from './task-info.reader';
import { TaskStatusFeed } from './task-status.feed';
import { TaskWait, pollDelay } from './task-wait';
import { declaringTasks } from './tasks-extension';

/** What the modern awaiter needs of its connection: sending one request, and answering questions as MRTR does. */
export interface ModernTaskHost extends InputAnswerHost {
  send(method: string, params: Record<string, unknown>, options: McpCallOptions): Promise<Record<string, unknown>>;
}

/**
 * Modern era (the tasks extension): waits for a task by polling `tasks/get` at the server's interval. The task's
 * questions come with its `input_required` status (`inputRequests`): each key is answered once, through the same
 * handlers and checks as an `input_required` round, and the answers sent with `tasks/update`. The task's end is in
 * `tasks/get` itself: its `result` (a tool error included), its JSON-RPC `error`, or `cancelled`.
 */
export class ModernTaskAwaiter {
  constructor(
    private readonly host: ModernTaskHost,
    private readonly requestTimeoutMs: number,
  ) {}

  async await(taskId: string, options: McpAwaitTaskOptions = {}): Promise<CallToolResult> {
    const wait = new TaskWait(taskId, options);
    const feed = new TaskStatusFeed(options.onStatus);
    const answered = new Set<string>();
    try {
      for (;;) {
        const detailed = await this.get(taskId, wait);
        const task = readTaskInfo(detailed, 'modern', 'tasks/get');
        feed.see(task);
        switch (task.status) {
          case 'completed':
            if (!isJsonObject(detailed.result))
              throw new McpClientError('protocol', 'The server answered tasks/get with a completed task and no result');
            return detailed.result as CallToolResult;
          case 'failed':
            throw failureOf(task, detailed.error);
          case 'cancelled':
            throw new McpTaskCancelledError(taskId, task.statusMessage);
          case 'input_required':
            // Answered: ask again at once, the task may have moved on or asked more.
            if (await this.answer(taskId, detailed.inputRequests, answered, wait, options.assigns)) continue;
        }
        await wait.pause(pollDelay(task));
      }
    } catch (error) {
      throw wait.reasonFor(error);
    } finally {
      wait.end();
    }
  }

  private async get(taskId: string, wait: TaskWait): Promise<Record<string, unknown>> {
    try {
      return await this.send('tasks/get', { taskId }, wait);
    } catch (error) {
      if (error instanceof McpClientError && error.kind === 'rpc' && error.code === ErrorCode.InvalidParams)
        throw unknownTask(taskId, error.data);
      throw error;
    }
  }

  /**
   * Answers the questions not answered yet and sends the answers; false when there were none (a question stays
   * listed until the task has taken its answer in, and keys are never reused, so each is answered once).
   */
  private async answer(
    taskId: string,
    requests: unknown,
    answered: Set<string>,
    wait: TaskWait,
    assigns: Record<string, unknown> | undefined,
  ): Promise<boolean> {
    if (!isJsonObject(requests))
      throw new McpClientError('protocol', 'The server answered tasks/get with input_required and no inputRequests');
    const fresh = Object.entries(requests).filter(([key]) => !answered.has(key));
    if (fresh.length === 0) return false;
    for (const [key] of fresh) answered.add(key);
    const answers = await wait.within(answerInputRequests(this.host, Object.fromEntries(fresh), assigns, wait.signal));
    await this.send('tasks/update', { taskId, inputResponses: answers }, wait);
    return true;
  }

  private send(method: string, params: Record<string, unknown>, wait: TaskWait): Promise<Record<string, unknown>> {
    return this.host.send(method, declaringTasks(params), {
      signal: wait.signal,
      timeout: wait.requestTimeout(this.requestTimeoutMs),
    });
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, META_RELATED_TASK, McpError, invalidParams, methodNotFound } from '@conduit-mcp/core';
import { McpRequestContext, invocationOf } from '../context/mcp-request-context';
import { McpParams } from '../dispatch/mcp-route.interface';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { DEFAULT_PAGE_SIZE } from '../mcp.constants';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpRegistry } from '../registry/mcp.registry';
import { LegacyTaskChannels } from '../tasks/legacy-task.channel';
import { McpTaskRunner } from '../tasks/mcp-task.runner';
import { declaresTasks, offersLegacyTasks, taskOwnerOf, tasksExtensionRequired } from '../tasks/task-extension';
import { toDetailedTask, toLegacyTask } from '../tasks/task.projection';
import { TERMINAL_TASK_STATUSES, TaskRecord } from '../tasks/task.store';
import { echo, requireString } from './params';

/**
 * The `tasks/*` methods of both eras. Modern (the tasks extension): `tasks/get`, `tasks/update`, `tasks/cancel`; each
 * request must declare the extension (-32021 before anything is looked up); `tasks/update` and `tasks/cancel` answer
 * an empty acknowledgement, a terminal task included. Legacy (2025-11-25, in a session offered tasks, else -32601):
 * `tasks/get`, `tasks/result` (waits for the end, then the call's own answer), `tasks/list`, `tasks/cancel` (the
 * cancelled task; a terminal one is -32602). In both, a task unknown to its caller — never made, expired, another
 * owner's — is -32602.
 */
@Injectable()
export class TaskMethods {
  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly registry: McpRegistry,
    private readonly runner: McpTaskRunner,
    private readonly channels: LegacyTaskChannels,
  ) {}

  async get(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const taskId = this.admit(params, ctx);
    const task = found(await this.runner.get(taskOwnerOf(ctx), taskId), taskId);
    return (ctx.era === 'modern' ? toDetailedTask(task) : toLegacyTask(task)) as unknown as Record<string, unknown>;
  }

  async update(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const taskId = this.admit(params, ctx);
    const responses = params.inputResponses;
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
      throw invalidParams('Invalid "inputResponses": an object is required');
    const known = await this.runner.answer(taskOwnerOf(ctx), taskId, responses as Record<string, unknown>);
    if (!known) throw unknownTask(taskId);
    return {};
  }

  async cancel(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const taskId = this.admit(params, ctx);
    const owner = taskOwnerOf(ctx);
    if (ctx.era === 'modern') {
      found(await this.runner.cancel(owner, taskId), taskId);
      return {};
    }
    // 2025-11-25: cancelling a terminal task is an error, and the answer is the task, cancelled.
    const before = found(await this.runner.get(owner, taskId), taskId);
    const after = TERMINAL_TASK_STATUSES.has(before.status) ? before : await this.runner.cancel(owner, taskId);
    if (!after) throw unknownTask(taskId);
    if (after.status !== 'cancelled' || before.status === 'cancelled')
      throw invalidParams(`Task ${echo(taskId)} has ended already (${after.status}): it cannot be cancelled`);
    return { ...toLegacyTask(after) };
  }

  /**
   * 2025-11-25 `tasks/result`: waits until the task ends, then answers what its `tools/call` would have: the tool's
   * result with the related task in `_meta`, or the JSON-RPC error it failed with. Meanwhile the task's questions
   * and progress go on this request's stream. A cancelled task has no answer of its own: -32603, saying so.
   */
  async result(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const taskId = this.admit(params, ctx);
    const owner = taskOwnerOf(ctx);
    found(await this.runner.get(owner, taskId), taskId);
    const stream = invocationOf(ctx).ownStream;
    const detach = stream && this.channels.get(taskId)?.attach(stream);
    let task: TaskRecord | undefined;
    try {
      task = await this.runner.settled(owner, taskId, ctx.signal);
    } finally {
      detach?.();
    }
    if (!task) throw unknownTask(taskId);
    if (task.result) {
      const meta = { ...(task.result._meta as Record<string, unknown> | undefined), [META_RELATED_TASK]: { taskId } };
      return { ...task.result, _meta: meta };
    }
    if (task.status === 'cancelled')
      throw new McpError(ErrorCode.InternalError, 'The task was cancelled', { taskId, status: 'cancelled' });
    const error = task.error ?? { code: ErrorCode.InternalError, message: task.statusMessage ?? 'The task failed' };
    throw new McpError(error.code, error.message, error.data);
  }

  /** 2025-11-25 `tasks/list`: the caller's tasks, newest first, a page at a time. */
  async list(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    this.admitLegacy(ctx);
    const { cursor } = params;
    if (cursor !== undefined && typeof cursor !== 'string')
      throw invalidParams('Invalid "cursor": a string is required');
    const page = await this.runner.list(taskOwnerOf(ctx), cursor, this.options.pageSize ?? DEFAULT_PAGE_SIZE);
    if (!page) throw invalidParams('Invalid cursor');
    const result: Record<string, unknown> = { tasks: page.tasks.map(toLegacyTask) };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return result;
  }

  // A server without task tools has no tasks methods; a modern request declares the extension, a legacy session must
  // be one offered tasks; then the task's id.
  private admit(params: McpParams, ctx: McpRequestContext): string {
    if (ctx.era === 'modern') {
      if (!this.registry.servesTasks) throw methodNotFound(ctx.method);
      if (!declaresTasks(ctx.clientCapabilities)) throw tasksExtensionRequired();
    } else this.admitLegacy(ctx);
    return requireString(params, 'taskId');
  }

  private admitLegacy(ctx: McpRequestContext): void {
    if (!offersLegacyTasks(invocationOf(ctx).session, this.registry.servesTasks)) throw methodNotFound(ctx.method);
  }
}

function found(task: TaskRecord | undefined, taskId: string): TaskRecord {
  if (!task) throw unknownTask(taskId);
  return task;
}

function unknownTask(taskId: string) {
  return invalidParams(`Unknown task: ${echo(taskId)}`);
}

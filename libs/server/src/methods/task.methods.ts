import { Injectable } from '@nestjs/common';
import { invalidParams, methodNotFound } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { McpParams } from '../dispatch/mcp-route.interface';
import { McpRegistry } from '../registry/mcp.registry';
import { McpTaskRunner } from '../tasks/mcp-task.runner';
import { declaresTasks, taskOwnerOf, tasksExtensionRequired } from '../tasks/task-extension';
import { toDetailedTask } from '../tasks/task.projection';
import { TaskRecord } from '../tasks/task.store';
import { echo, requireString } from './params';

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` of the modern era's tasks extension. Each request must declare the
 * extension (-32021 before anything is looked up); a task unknown to its caller — never made, expired, another
 * owner's — is -32602. `tasks/update` and `tasks/cancel` answer an empty acknowledgement, a terminal task included.
 */
@Injectable()
export class TaskMethods {
  constructor(
    private readonly registry: McpRegistry,
    private readonly runner: McpTaskRunner,
  ) {}

  async get(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const taskId = this.admit(params, ctx);
    const task = toDetailedTask(found(await this.runner.get(taskOwnerOf(ctx), taskId), taskId));
    return task as unknown as Record<string, unknown>;
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
    found(await this.runner.cancel(taskOwnerOf(ctx), taskId), taskId);
    return {};
  }

  // A server without task tools has no tasks methods; the extension is declared per request; then the task's id.
  private admit(params: McpParams, ctx: McpRequestContext): string {
    if (!this.registry.servesTasks) throw methodNotFound(ctx.method);
    if (!declaresTasks(ctx.clientCapabilities)) throw tasksExtensionRequired();
    return requireString(params, 'taskId');
  }
}

function found(task: TaskRecord | undefined, taskId: string): TaskRecord {
  if (!task) throw unknownTask(taskId);
  return task;
}

function unknownTask(taskId: string) {
  return invalidParams(`Unknown task: ${echo(taskId)}`);
}

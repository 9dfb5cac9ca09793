import { Injectable } from '@nestjs/common';
import { CallToolResult, ErrorCode, McpError } from '@conduit-mcp/core';
import { McpInvocation } from '../context/mcp-invocation';
import { McpRequestContext, invocationOf } from '../context/mcp-request-context';
import { McpRequestState } from '../context/mcp-request-state';
import { RegisteredTool } from '../registry/registry.types';
import { McpSession } from '../session/mcp-session';
import { RequestCancellation } from '../session/request-cancellation';
import { McpTaskRunner, RunningTask } from '../tasks/mcp-task.runner';
import { declaresTasks, taskOwnerOf, tasksExtensionRequired } from '../tasks/task-extension';
import { toModernTask } from '../tasks/task.projection';
import { TaskRecord } from '../tasks/task.store';
import { checkArguments } from './tool-arguments';

/** Runs a checked call's handler in the context it is given. */
export type ToolInvoke = (args: unknown, ctx: McpRequestContext) => Promise<CallToolResult>;

/**
 * The modern era's task path of `tools/call` (the tasks extension). A request that declares the extension, to a
 * tool whose calls may run as tasks, gets a task: its arguments are checked first (invalid ones are a tool error, at
 * once), then the handler runs detached — same handler, a context of its own: questions through `tasks/update`,
 * `ctx.signal` aborted by `tasks/cancel`, no progress or log messages (the extension has none for tasks) — and the
 * answer is the created task. A tool that requires a task refuses a request without the extension (-32021).
 */
@Injectable()
export class ToolTasks {
  constructor(private readonly runner: McpTaskRunner) {}

  /** The created task (`resultType: "task"`), or undefined when the call runs inline. */
  async call(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    ctx: McpRequestContext,
    invoke: ToolInvoke,
  ): Promise<Record<string, unknown> | CallToolResult | undefined> {
    if (!declaresTasks(ctx.clientCapabilities)) {
      if (tool.task === 'required') throw tasksExtensionRequired();
      return undefined;
    }
    const checked = await checkArguments(tool, args);
    if (!checked.ok) return checked.error;
    if (tool.taskStart === 'handler') return this.startedByHandler(tool, checked.value, ctx, invoke);
    const task = await this.runner.start({
      ...this.launchOf(tool, ctx),
      run: (running) => invoke(checked.value, detached(ctx, running)),
    });
    if (task) return created(task);
    if (tool.task === 'required') {
      throw new McpError(ErrorCode.ServerError, 'Too many tasks: retry later', undefined, { http: { status: 503 } });
    }
    return undefined; // no room for a task: an optional one runs inline
  }

  /**
   * A tool that starts its task itself: the call runs as an ordinary one (its questions are input rounds) until the
   * handler calls `ctx.runAsTask()`; from then on the handler, still running, belongs to a new task, and the call
   * answers with that task. A handler that returns first answers inline.
   */
  private async startedByHandler(
    tool: RegisteredTool,
    args: unknown,
    ctx: McpRequestContext,
    invoke: ToolInvoke,
  ): Promise<Record<string, unknown> | CallToolResult> {
    const invocation = invocationOf(ctx);
    let becomeTask!: (task: TaskRecord) => void;
    const task = new Promise<TaskRecord>((resolve) => (becomeTask = resolve));
    // Read by the task's run only once the task exists, which is after the handler started below.
    invocation.promote = async () => {
      invocation.promote = undefined;
      const started = await this.runner.start({
        ...this.launchOf(tool, ctx),
        run: (running) => {
          invocation.detachInto(running.input, running.signal);
          return handler;
        },
      });
      if (started) becomeTask(started);
    };
    const handler = invoke(args, ctx);
    const first = await Promise.race([handler.then((result) => ({ result })), task.then((record) => ({ record }))]);
    return 'record' in first ? created(first.record) : first.result;
  }

  private launchOf(tool: RegisteredTool, ctx: McpRequestContext) {
    return {
      owner: taskOwnerOf(ctx),
      server: ctx.server,
      era: 'modern' as const,
      tool: tool.definition.name,
      clientCapabilities: ctx.clientCapabilities,
    };
  }
}

function created(task: TaskRecord): Record<string, unknown> {
  return { ...toModernTask(task), resultType: 'task' };
}

// The task's own context: the request's facts, a session and cancellation of its own (the request's end with its
// HTTP exchange), the task's questions, and nowhere to send progress or logs.
function detached(ctx: McpRequestContext, task: RunningTask): McpRequestContext {
  const request = invocationOf(ctx);
  const cancellation = new RequestCancellation();
  if (task.signal.aborted) cancellation.abort(task.signal.reason);
  else task.signal.addEventListener('abort', () => cancellation.abort(task.signal.reason), { once: true });
  const invocation = new McpInvocation({
    server: request.server,
    method: request.method,
    requestId: request.id,
    era: request.era,
    protocolVersion: request.protocolVersion,
    session: new McpSession(undefined, false),
    stream: undefined,
    transport: request.transport,
    cancellation,
    meta: request.meta,
    input: task.input,
    state: new McpRequestState(),
    clientInfo: request.clientInfo,
    clientCapabilities: request.clientCapabilities,
    logThreshold: () => null,
  });
  invocation.target = request.target;
  return new McpRequestContext(invocation);
}

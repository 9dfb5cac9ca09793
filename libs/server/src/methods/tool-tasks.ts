import { Injectable } from '@nestjs/common';
import { CallToolResult, ErrorCode, LoggingLevel, McpError } from '@conduit-mcp/core';
import { McpInput } from '../context/mcp-input.interface';
import { McpInvocation } from '../context/mcp-invocation';
import { McpRequestContext, invocationOf } from '../context/mcp-request-context';
import { McpRequestState } from '../context/mcp-request-state';
import { RegisteredTool } from '../registry/registry.types';
import { McpSession } from '../session/mcp-session';
import { RequestCancellation } from '../session/request-cancellation';
import { DurableCall, McpTaskRunner, RunningTask } from '../tasks/mcp-task.runner';
import { jobAuthOf } from '../tasks/task-job.reader';
import { declaresTasks, taskOwnerOf, tasksExtensionRequired } from '../tasks/task-extension';
import { toDetailedTask, toModernTask } from '../tasks/task.projection';
import { McpSubscriptionHub } from '../events/subscription.hub';
import { TaskRecord } from '../tasks/task.store';
import { checkArguments } from './tool-arguments';

/**
 * A call that could get no task (as many running as `maxRunning`, or the store full): an optional tool runs inline
 * (undefined), a required one is refused with 503.
 */
export function noRoomForTask(tool: RegisteredTool): undefined {
  if (tool.task !== 'required') return undefined;
  throw new McpError(ErrorCode.ServerError, 'Too many tasks: retry later', undefined, { http: { status: 503 } });
}

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
  constructor(
    private readonly runner: McpTaskRunner,
    private readonly hub: McpSubscriptionHub,
  ) {}

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
      durable: durableCallOf(tool, args, ctx),
      run: (running) => invoke(checked.value, detached(ctx, running)),
    });
    return task ? created(task) : noRoomForTask(tool);
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
    const owner = taskOwnerOf(ctx);
    return {
      owner,
      // Streams of subscriptions/listen that follow the task (notifications.taskIds) hear of each change.
      onStatus: (task: TaskRecord) =>
        this.hub.taskChanged(owner, task.taskId, () => ({ ...toDetailedTask(task) }) as Record<string, unknown>),
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

/**
 * What a durable tool's task is queued with (undefined for any other tool): the call as a worker needs it — the
 * arguments as sent (they passed the check), the revision, the client, the transport's kind and who called (never the
 * token).
 */
export function durableCallOf(
  tool: RegisteredTool,
  args: Record<string, unknown>,
  ctx: McpRequestContext,
): DurableCall | undefined {
  if (!tool.durable) return undefined;
  const call: DurableCall = { protocolVersion: ctx.protocolVersion, arguments: args, transport: ctx.transport.kind };
  if (ctx.clientInfo !== undefined) call.clientInfo = ctx.clientInfo;
  const auth = jobAuthOf(ctx.auth);
  if (auth !== undefined) call.auth = auth;
  return call;
}

/**
 * The task's own context: the request's facts, a session and cancellation of its own (the request's end with its
 * HTTP exchange), the task's questions, and nowhere to send progress or logs (a worker's task runs in one alike).
 */
export function detached(ctx: McpRequestContext, task: RunningTask): McpRequestContext {
  return detachedContext(ctx, task.signal, {
    session: new McpSession(undefined, false),
    input: task.input,
    logThreshold: () => null,
  }).ctx;
}

/** What a task's context takes from its era: the session it belongs to, its questions, its log level. */
export interface DetachedParts {
  session: McpSession;
  input: McpInput;
  logThreshold: () => LoggingLevel | null;
}

/**
 * A context for a call that runs as a task: the request's facts, with a cancellation of its own that the task's
 * `signal` aborts (the request itself ends with its exchange) and no stream of its own yet.
 */
export function detachedContext(
  ctx: McpRequestContext,
  signal: AbortSignal,
  parts: DetachedParts,
): { ctx: McpRequestContext; invocation: McpInvocation } {
  const request = invocationOf(ctx);
  const cancellation = new RequestCancellation();
  if (signal.aborted) cancellation.abort(signal.reason);
  else signal.addEventListener('abort', () => cancellation.abort(signal.reason), { once: true });
  const invocation = new McpInvocation({
    server: request.server,
    method: request.method,
    requestId: request.id,
    era: request.era,
    protocolVersion: request.protocolVersion,
    session: parts.session,
    stream: undefined,
    transport: request.transport,
    cancellation,
    meta: request.meta,
    input: parts.input,
    state: new McpRequestState(),
    clientInfo: request.clientInfo,
    clientCapabilities: request.clientCapabilities,
    logThreshold: parts.logThreshold,
    scopes: request.scopes,
  });
  invocation.target = request.target;
  return { ctx: new McpRequestContext(invocation), invocation };
}

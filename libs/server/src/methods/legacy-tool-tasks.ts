import { Injectable } from '@nestjs/common';
import { CallToolResult, ErrorCode, McpError, invalidParams } from '@conduit-mcp/core';
import { McpRequestContext, invocationOf } from '../context/mcp-request-context';
import { LegacyEra } from '../eras/legacy/legacy.era';
import { McpRegistry } from '../registry/mcp.registry';
import { RegisteredTool } from '../registry/registry.types';
import type { McpSession } from '../session/mcp-session';
import { LegacyTaskChannel, LegacyTaskChannels } from '../tasks/legacy-task.channel';
import { McpTaskRunner } from '../tasks/mcp-task.runner';
import { offersLegacyTasks, taskOwnerOf } from '../tasks/task-extension';
import { toLegacyTask } from '../tasks/task.projection';
import { TaskRecord } from '../tasks/task.store';
import { checkArguments } from './tool-arguments';
import { ToolInvoke, detachedContext, durableCallOf, noRoomForTask } from './tool-tasks';

/**
 * The task path of `tools/call` in revision 2025-11-25 (its experimental tasks): a request with `params.task`, to a
 * tool whose calls may run as tasks, in a session offered tasks (see `offersLegacyTasks`), gets `{ task }` at once
 * while the handler runs detached — same handler: its questions are server-to-client requests carrying the related
 * task (sent on a waiting `tasks/result` stream, else the session's own), its progress keeps the original token,
 * `ctx.signal` aborts on `tasks/cancel`. A tool that forbids tasks refuses `params.task` and a tool that requires one
 * refuses a call without it (-32601, as the specification says); a session not offered tasks has `params.task`
 * ignored.
 */
@Injectable()
export class LegacyToolTasks {
  constructor(
    private readonly registry: McpRegistry,
    private readonly runner: McpTaskRunner,
    private readonly era: LegacyEra,
    private readonly channels: LegacyTaskChannels,
  ) {}

  /** `{ task }` once created, or undefined when the call runs inline. */
  async call(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    requested: unknown,
    ctx: McpRequestContext,
    invoke: ToolInvoke,
  ): Promise<Record<string, unknown> | CallToolResult | undefined> {
    const { session } = invocationOf(ctx);
    const name = tool.definition.name;
    if (!offersLegacyTasks(session, this.registry.servesTasks)) {
      if (tool.task === 'required')
        throw taskRule(`Tool ${name} runs only as a task, which needs protocol 2025-11-25 and a session`);
      return undefined;
    }
    if (requested === undefined) throw taskRule(`Tool ${name} runs only as a task: call it with params.task`);
    if (tool.task === 'forbidden') throw taskRule(`Tool ${name} does not run as a task`);
    const ttlMs = requestedTtl(requested);
    const checked = await checkArguments(tool, args);
    if (!checked.ok) return checked.error;
    const owner = taskOwnerOf(ctx);
    const durable = durableCallOf(tool, args, ctx);
    let channel: LegacyTaskChannel | undefined;
    const task = await this.runner.start({
      owner,
      server: ctx.server,
      era: 'legacy',
      tool: name,
      ttlMs,
      clientCapabilities: session.clientCapabilities,
      input: ({ taskId, signal, asking }) =>
        this.era.input(
          session,
          () => channel?.sink,
          { signal },
          {
            taskId,
            asking,
            sink: (method, questionSignal, timeoutMs) => channel!.ready(method, questionSignal, timeoutMs),
          },
        ),
      // No related-task `_meta` on status notifications (the specification says so); polling covers a missed one. A
      // task a worker runs has no channel here: its changes go to the session's own stream.
      onStatus: (record) =>
        (channel?.sink ?? session.outbound)?.send({
          jsonrpc: '2.0',
          method: 'notifications/tasks/status',
          params: { ...toLegacyTask(record) },
        }),
      durable,
      run: async (running) => {
        const detached = detachedContext(ctx, running.signal, {
          session,
          input: running.input,
          logThreshold: () => session.logLevel ?? 'debug',
        });
        channel = new LegacyTaskChannel(session, detached.invocation);
        const closeChannel = this.channels.open(running.taskId, channel);
        // A task owned by its session ends with it: nobody else could ever read it. Ended, not closed here only:
        // another instance may go on serving the session (this one shut down, or let it idle).
        const offClose = owner.startsWith('session:')
          ? session.onClose(() => endsWith(session) && void this.runner.cancel(owner, running.taskId))
          : undefined;
        try {
          return await invoke(checked.value, detached.ctx);
        } finally {
          closeChannel();
          offClose?.();
        }
      },
    });
    // A task owned by its session ends with it, also when a worker runs it (the cancel reaches the worker).
    if (task && durable && this.runner.queuesDurable && owner.startsWith('session:'))
      session.onClose(() => endsWith(session) && void this.runner.cancel(owner, task.taskId));
    return task ? created(task) : noRoomForTask(tool);
  }
}

// Whether a session-owned task ends with its session's close: a throw-away session always, a persistent one when it
// is ended for good.
function endsWith(session: McpSession): boolean {
  return !session.persistent || session.endedForGood;
}

// The specification's code for a call that breaks the tool's task support (-32601), with a message that says how.
function taskRule(message: string): McpError {
  return new McpError(ErrorCode.MethodNotFound, message);
}

function created(task: TaskRecord): Record<string, unknown> {
  return { task: toLegacyTask(task) };
}

// `params.task` is `{ ttl?: integer }` (the retention asked for, in milliseconds; the runner clamps it).
function requestedTtl(requested: unknown): number | undefined {
  if (typeof requested !== 'object' || requested === null || Array.isArray(requested))
    throw invalidParams('Invalid "task": an object is required');
  const { ttl } = requested as { ttl?: unknown };
  if (ttl === undefined || ttl === null) return undefined;
  if (!Number.isSafeInteger(ttl) || (ttl as number) < 0)
    throw invalidParams('Invalid "task.ttl": a non-negative integer of milliseconds is required');
  return ttl as number;
}

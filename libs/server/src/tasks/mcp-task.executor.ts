import { Inject, Injectable, Logger } from '@nestjs/common';
import { CallToolResult, ErrorCode, McpError, invalidParams } from '@conduit-mcp/core';
import { McpScopePolicy } from '../auth/scope.policy';
import { McpInput } from '../context/mcp-input.interface';
import { McpRequestContext } from '../context/mcp-request-context';
import { McpRequestState } from '../context/mcp-request-state';
import { messageTransportFacts } from '../dispatch/transport-facts.interface';
import { McpEventBus } from '../events/mcp-event.bus';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { echo } from '../methods/params';
import { checkArguments } from '../methods/tool-arguments';
import { ToolMethods } from '../methods/tool.methods';
import { detached } from '../methods/tool-tasks';
import { McpRegistry } from '../registry/mcp.registry';
import { McpSession } from '../session/mcp-session';
import { RequestCancellation } from '../session/request-cancellation';
import { McpTaskRunner, RunningTask, TaskLaunch } from './mcp-task.runner';
import { readTaskJob } from './task-job.reader';
import { McpTaskJob } from './task.queue';
import { TERMINAL_TASK_STATUSES, TaskRecord, TaskStore } from './task.store';

/**
 * Runs the queued tasks of durable tools (`@McpTool({ durable: true })`) in a worker: the worker process boots the
 * app's module (a Nest application context, no HTTP) and hands each job to the executor of its server
 * (`@conduit-mcp/redis`'s `McpTaskWorker` does). The tool runs through the same pipeline as a call — guards,
 * interceptors, pipes, filters — in a context of the task's own: `ctx.auth` as the call's, no session, no progress or
 * logs; in the modern era its questions are the task's `inputRequests`, answered by `tasks/update` on any instance
 * (through the bus); `ctx.signal` aborts on `tasks/cancel` (any instance), on expiry and when the worker stops. The
 * end is recorded in the task store as for a task run in an instance, and each change of status is announced on the
 * bus (`task-status`). In revision 2025-11-25 a worker's task cannot ask the client anything (its questions need
 * the session, held by the instance that took the call): they fail with -32603.
 */
@Injectable()
export class McpTaskExecutor {
  private readonly logger = new Logger('McpTaskExecutor');
  private lastAnnounceError: string | undefined;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly registry: McpRegistry,
    private readonly tools: ToolMethods,
    private readonly runner: McpTaskRunner,
    @Inject(TaskStore) private readonly store: TaskStore,
    @Inject(McpEventBus) private readonly bus: McpEventBus,
    private readonly scopes: McpScopePolicy,
  ) {}

  /** The server whose jobs this executor runs (`McpModule.forRoot({ name })`). */
  get server(): string {
    return this.options.name;
  }

  /**
   * Runs a job's task; resolves once it no longer runs here, its end recorded (at once for a task cancelled or
   * expired while it waited). `signal` aborting stops it `failed`, with the reason's message. Rejects a job that is
   * malformed, of another server, or does not match its task.
   *
   * @example
   * await executor.execute(job.data, controller.signal); // in a queue's job handler
   */
  async execute(job: McpTaskJob, signal: AbortSignal): Promise<void> {
    const checked = this.read(job);
    const task = await this.store.get(checked.owner, checked.taskId);
    if (!task || TERMINAL_TASK_STATUSES.has(task.status)) return;
    if (task.server !== checked.server || task.tool !== checked.tool || task.era !== checked.era)
      throw new Error(`Invalid task job: it does not match task ${echo(checked.taskId)}`);
    await this.runner.adopt(task, this.launchOf(checked), signal);
  }

  /**
   * Marks a job's task `failed` with `message` unless it ended already: for a job its queue gave up without running
   * it to its end (its worker stopped: the task is not run twice).
   */
  async fail(job: McpTaskJob, message: string): Promise<void> {
    const { owner, taskId } = this.read(job);
    const failed = await this.runner.abandon(owner, taskId, message);
    if (failed) this.announce(failed);
  }

  private read(job: McpTaskJob): McpTaskJob {
    const checked = readTaskJob(job);
    if (checked.server !== this.server)
      throw new Error(`Invalid task job: for server ${echo(checked.server)}, not ${echo(this.server)}`);
    return checked;
  }

  private launchOf(job: McpTaskJob): TaskLaunch {
    return {
      owner: job.owner,
      server: job.server,
      era: job.era,
      tool: job.tool,
      clientCapabilities: job.clientCapabilities,
      input: job.era === 'legacy' ? () => NO_LEGACY_QUESTIONS : undefined,
      onStatus: (task) => this.announce(task),
      run: (running) => this.run(job, running),
    };
  }

  private async run(job: McpTaskJob, running: RunningTask): Promise<CallToolResult> {
    const tool = this.registry.tool(job.tool);
    if (!tool) throw invalidParams(`Unknown tool: ${echo(job.tool)}`);
    const checked = await checkArguments(tool, job.arguments);
    if (!checked.ok) return checked.error;
    return this.tools.invoker(tool)(checked.value, detached(this.contextOf(job), running));
  }

  // The call as the instance saw it, rebuilt from the job (`detached` then gives the task its own context).
  private contextOf(job: McpTaskJob): McpRequestContext {
    const ctx = new McpRequestContext({
      server: job.server,
      method: 'tools/call',
      requestId: job.taskId,
      era: job.era,
      protocolVersion: job.protocolVersion,
      session: new McpSession(undefined, false),
      stream: undefined,
      transport: { ...messageTransportFacts(job.transport), ...(job.auth ? { auth: job.auth } : {}) },
      cancellation: new RequestCancellation(),
      meta: {},
      input: NO_LEGACY_QUESTIONS,
      state: new McpRequestState(),
      clientInfo: job.clientInfo,
      clientCapabilities: job.clientCapabilities,
      logThreshold: () => null,
      scopes: this.scopes,
    });
    ctx.target = { kind: 'tool', name: job.tool };
    return ctx;
  }

  // The instance that queued the task tells its status listeners (a legacy session, modern listen streams).
  private announce(task: TaskRecord): void {
    const { server, taskId, owner, status } = task;
    this.bus.publish({ type: 'task-status', server, taskId, owner, status }).then(
      () => (this.lastAnnounceError = undefined),
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        if (reason === this.lastAnnounceError) return;
        this.lastAnnounceError = reason;
        this.logger.warn(`A task's change of status could not be announced (clients still poll): ${reason}`);
      },
    );
  }
}

const refused = () =>
  Promise.reject(
    new McpError(
      ErrorCode.InternalError,
      'A 2025-11-25 task run by a worker cannot ask the client: its questions need the session of the instance that took the call',
    ),
  );

/** The questions of a 2025-11-25 task in a worker: refused, the session that would carry them is elsewhere. */
const NO_LEGACY_QUESTIONS: McpInput = { elicit: refused, sample: refused, roots: refused };

import { CallToolResult, ErrorCode, isJsonObject, sanitizeText } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { DEFAULT_TIMEOUT_MS } from './call-table';
import { ClientConnection } from './client-connection';
import { LegacyTaskAwaiter } from './legacy-task.awaiter';
import { ListPages } from './list-pages';
import { McpCallOptions } from './mcp-call-options';
import { McpListParams } from './mcp-client.types';
import { McpAwaitTaskOptions, McpTaskCallOptions, McpTaskInfo, McpTaskStart } from './mcp-task.types';
import { ModernTaskAwaiter } from './modern-task.awaiter';
import { isUnknownTask, readTaskInfo, unknownTask } from './task-info.reader';
import { declaringTasks } from './tasks-extension';

/** What the task calls need of their client. */
export interface TaskCallsClient {
  connect(): Promise<void>;
  /** A request with the era's envelope (and, for `tools/call`, its input rounds). */
  request(method: string, params: Record<string, unknown>, options?: McpCallOptions): Promise<Record<string, unknown>>;
  /** A tool call's options once the tool's `Mcp-Param-*` declarations are known (see `ToolDeclarations`). */
  prepareCall(name: string, options: McpCallOptions): Promise<McpCallOptions>;
}

/** The legacy `capabilities.tasks` entries each operation needs, and what their absence means. */
const LEGACY_NEEDS = {
  call: ['requests.tools.call', 'run tools as tasks', 'call the tool with callTool()'],
  cancel: ['cancel', 'let tasks be cancelled', 'let the task end, or its ttl pass'],
  list: ['list', 'list tasks', 'keep the ids callToolAsTask() returned'],
} as const;

/**
 * Tool calls run as tasks, in whichever era the connection speaks: starting one (2025-11-25: a `task` param the
 * server's `capabilities.tasks` allows; modern: the tasks extension declared for that request), waiting for it,
 * cancelling it, listing them (legacy only). The waiting itself is each era's awaiter's.
 */
export class TaskCalls {
  private readonly modern: ModernTaskAwaiter;
  private readonly legacy: LegacyTaskAwaiter;

  constructor(
    private readonly connection: Pick<ClientConnection, 'negotiator' | 'calls' | 'inputs' | 'tasks'>,
    private readonly client: TaskCallsClient,
    private readonly pages: ListPages,
    options: Pick<McpClientModuleOptions, 'requestTimeoutMs'>,
  ) {
    const { calls, inputs, tasks } = connection;
    const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.modern = new ModernTaskAwaiter(
      {
        send: (method, params, callOptions) => calls.send(method, params, callOptions),
        capabilities: inputs.capabilities,
        answer: inputs.answer,
      },
      requestTimeoutMs,
    );
    this.legacy = new LegacyTaskAwaiter(
      {
        send: (method, params, callOptions, id) => calls.send(method, params, callOptions, id),
        newId: () => calls.newId(),
        watches: tasks,
      },
      requestTimeoutMs,
    );
  }

  async callAsTask(name: string, args: Record<string, unknown>, options: McpTaskCallOptions): Promise<McpTaskStart> {
    const { ttlMs, ...callOptions } = options;
    if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs > 0))
      throw new RangeError(`callToolAsTask: ttlMs must be a positive whole number of milliseconds, not ${ttlMs}`);
    const prepared = await this.client.prepareCall(name, callOptions);
    if (this.connection.negotiator.era === 'modern') {
      const result = await this.client.request('tools/call', declaringTasks({ name, arguments: args }), prepared);
      if (result.resultType !== 'task') return { result: result as CallToolResult };
      return { task: readTaskInfo(result, 'modern', 'tools/call') };
    }
    this.requireLegacy('call');
    const task = ttlMs === undefined ? {} : { ttl: ttlMs };
    let result: Record<string, unknown>;
    try {
      result = await this.client.request('tools/call', { name, arguments: args, task }, prepared);
    } catch (error) {
      throw notAsTask(name, error);
    }
    // A server may run the call as usual after all: then its result is here.
    if (!isJsonObject(result.task)) return { result: result as CallToolResult };
    return { task: readTaskInfo(result.task, 'legacy', 'tools/call') };
  }

  async await(taskId: string, options: McpAwaitTaskOptions = {}): Promise<CallToolResult> {
    await this.client.connect();
    const awaiter = this.connection.negotiator.era === 'modern' ? this.modern : this.legacy;
    return awaiter.await(taskId, options);
  }

  async cancel(taskId: string, options: McpCallOptions = {}): Promise<McpTaskInfo | undefined> {
    await this.client.connect();
    const modern = this.connection.negotiator.era === 'modern';
    if (!modern) this.requireLegacy('cancel');
    try {
      if (modern) {
        await this.client.request('tasks/cancel', declaringTasks({ taskId }), options);
        return undefined;
      }
      return readTaskInfo(await this.client.request('tasks/cancel', { taskId }, options), 'legacy', 'tasks/cancel');
    } catch (error) {
      if (!isUnknownTask(error)) throw error;
      // 2025-11-25 refuses a task that already ended alike; the extension acknowledges that.
      if (modern) throw unknownTask(taskId, error.data);
      throw new McpClientError(
        'rpc',
        `Task ${sanitizeText(taskId, 128)} cannot be cancelled: it already ended (completed, failed or cancelled), ` +
          'expired, or is unknown to the server',
        error.code,
        error.data,
      );
    }
  }

  async list(params: McpListParams, options: McpCallOptions = {}): Promise<McpTaskInfo[]> {
    await this.client.connect();
    this.connection.negotiator.requireEra(
      'legacy',
      'tasks/list',
      'the task ids callToolAsTask() returned (the tasks extension has no list)',
    );
    this.requireLegacy('list');
    const tasks = await this.pages.collect<unknown>('tasks/list', 'tasks', params, options);
    return tasks.map((task) => readTaskInfo(task, 'legacy', 'tasks/list'));
  }

  private requireLegacy(need: keyof typeof LEGACY_NEEDS): void {
    const [path, what, instead] = LEGACY_NEEDS[need];
    let entry: unknown = this.connection.negotiator.serverCapabilities.tasks;
    for (const key of path.split('.')) entry = isJsonObject(entry) ? entry[key] : undefined;
    if (isJsonObject(entry)) return;
    throw new McpClientError(
      'protocol',
      `The server does not ${what} (its capabilities have no tasks.${path}, ` +
        `revision ${this.connection.negotiator.protocolVersion}); ${instead}`,
    );
  }
}

// 2025-11-25: a tool that may not run as a task is refused with -32601.
function notAsTask(name: string, error: unknown): unknown {
  if (!(error instanceof McpClientError) || error.kind !== 'rpc' || error.code !== ErrorCode.MethodNotFound)
    return error;
  return new McpClientError(
    'rpc',
    `The server does not run ${sanitizeText(name, 128)} as a task (its execution.taskSupport is "forbidden" or ` +
      `absent): call it with callTool(). The server said: ${error.message}`,
    error.code,
    error.data,
    { cause: error },
  );
}

import {
  CallToolResult,
  CompleteResult,
  Era,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  MRTR_METHODS,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@conduit-mcp/core';
import { McpClientModuleOptions, McpServerConfig } from '../interfaces/mcp-client-options.interface';
import { ClientTransport } from '../transports/client-transport.interface';
import { ClientConnection } from './client-connection';
import { McpInputResponder } from './input-responder.interface';
import { ListPages } from './list-pages';
import { McpCallOptions } from './mcp-call-options';
import { McpClientState, McpListParams, McpListenHandle } from './mcp-client.types';
import { McpAwaitTaskOptions, McpTaskCallOptions, McpTaskInfo, McpTaskStart } from './mcp-task.types';
import { TaskCalls } from './task-calls';
import { ToolDeclarations } from './tool-declarations';

export type { McpClientState, McpListenHandle } from './mcp-client.types';

/**
 * A connection to one MCP server, in whichever era it speaks: requests with deadlines, cancellation and progress;
 * legacy server requests answered through the responder; modern `input_required` results fulfilled in the calling
 * flow and retried (MRTR). The module makes one per configured server: inject it with `@InjectMcpClient(id)`.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class Forecasts {
 *   constructor(@InjectMcpClient('weather') private readonly weather: McpClient) {}
 *
 *   forecast(city: string): Promise<CallToolResult> {
 *     const onProgress = (progress: McpProgress) => console.error(`${progress.progress}/${progress.total ?? '?'}`);
 *     return this.weather.callTool('forecast', { city }, { timeout: 30_000, onProgress });
 *   }
 * }
 * ```
 */
export class McpClient {
  private readonly connection: ClientConnection;
  private readonly pages: ListPages;
  private readonly declarations: ToolDeclarations;
  private readonly tasks: TaskCalls;

  constructor(
    readonly config: McpServerConfig,
    options: McpClientModuleOptions,
    responder: McpInputResponder,
    createTransport: (config: McpServerConfig['transport']) => ClientTransport,
  ) {
    this.connection = new ClientConnection(config, options, responder, createTransport);
    this.pages = new ListPages((...page) => this.request(...page), options);
    this.declarations = new ToolDeclarations(this.connection, this, options);
    this.tasks = new TaskCalls(
      this.connection,
      {
        connect: () => this.connect(),
        request: (...call) => this.request(...call),
        prepareCall: (name, callOptions) => this.declarations.prepare(name, callOptions),
      },
      this.pages,
      options,
    );
  }

  get id(): string {
    return this.config.id;
  }
  get state(): McpClientState {
    return this.connection.state;
  }
  get era(): Era | undefined {
    return this.connection.negotiator.era;
  }
  get protocolVersion(): string | undefined {
    return this.connection.negotiator.protocolVersion;
  }
  get serverCapabilities(): ServerCapabilities {
    return this.connection.negotiator.serverCapabilities;
  }
  get serverInfo(): Implementation | undefined {
    return this.connection.negotiator.serverInfo;
  }
  get instructions(): string | undefined {
    return this.connection.negotiator.instructions;
  }
  // Not public API (protected keeps it from being reported unused): tests and benchmarks look at the transport's
  // child process or session through it.
  protected get transport(): ClientTransport | undefined {
    return this.connection.transport;
  }

  /** Connects and negotiates the era (once; later calls wait for the first). */
  connect(): Promise<void> {
    return this.connection.connect();
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  /**
   * Sends a request and resolves with its result; in the modern era `input_required` rounds are answered first. The
   * call's `timeout` counts the time on the wire across rounds (answering questions pauses it, as in the legacy era);
   * `maxTotalTimeout` bounds the whole call, answers included.
   */
  async request<T = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown> = {},
    options: McpCallOptions = {},
  ): Promise<T> {
    await this.connect();
    const { calls, rounds } = this.connection;
    if (this.era !== 'modern' || !MRTR_METHODS.has(method)) return calls.send(method, params, options) as Promise<T>;
    return rounds.run(method, params, options) as Promise<T>;
  }

  // The client API -----------------------------------------------------------------------------------------------

  ping(options?: McpCallOptions): Promise<Record<string, unknown>> {
    // 2026-07-28 removed ping; discovery is the cheapest round trip there.
    return this.era === 'modern' ? this.request('server/discover', {}, options) : this.request('ping', {}, options);
  }

  async discover(options?: McpCallOptions): Promise<Record<string, unknown>> {
    await this.requireEra('modern', 'server/discover', "the legacy era's initialize result (serverInfo, capabilities)");
    return this.request('server/discover', {}, options);
  }

  /**
   * Every page of tools from `cursor` (within `maxListPages`, `maxListItems`, `maxListBytes` and the call's deadline),
   * or one page with `all: false`.
   */
  async listTools(params: McpListParams = {}, options?: McpCallOptions): Promise<Tool[]> {
    const tools = await this.pages.collect<Tool>('tools/list', 'tools', params, options);
    // A tool whose x-mcp-header declarations are invalid cannot be called correctly over HTTP: leave it out.
    return tools.filter((tool) => this.connection.envelope.learnTool(tool));
  }

  /** Modern era over HTTP: a tool not listed yet is looked up first, for the `Mcp-Param-*` headers it declares. */
  callTool(name: string, args: Record<string, unknown> = {}, options?: McpCallOptions): Promise<CallToolResult> {
    const params = { name, arguments: args };
    if (this.declarations.ready(name)) return this.request('tools/call', params, options);
    return this.declarations.prepare(name, options).then((prepared) => this.request('tools/call', params, prepared));
  }

  /**
   * Calls a tool as a task: resolves once the server has started it (or, when it chose to, with the tool's result), and
   * `awaitTask` then waits for its end. Legacy era (2025-11-25): the server must declare
   * `capabilities.tasks.requests.tools.call`; `ttlMs` asks for a retention. Modern era: the tasks extension is declared
   * for this request only, and questions asked before the task starts are answered first, as for `callTool`.
   *
   * @example
   * ```ts
   * const start = await client.callToolAsTask('render_video', { id: 42 }, { ttlMs: 3_600_000 });
   * const result =
   *   'result' in start
   *     ? start.result
   *     : await client.awaitTask(start.task.taskId, {
   *         onStatus: (task) => console.error(`${task.status} ${task.statusMessage ?? ''}`),
   *       });
   * ```
   */
  callToolAsTask(
    name: string,
    args: Record<string, unknown> = {},
    options: McpTaskCallOptions = {},
  ): Promise<McpTaskStart> {
    return this.tasks.callAsTask(name, args, options);
  }

  /**
   * Waits for a task to end and resolves its result (a tool error is a result, with `isError: true`); rejects with
   * `McpTaskFailedError` (the call's JSON-RPC error), `McpTaskCancelledError`, or an `rpc` error with code -32602 when
   * the server no longer knows the task (expired). The task's questions are answered by the client's handlers on the
   * way. Aborting `signal` or passing `timeout` stops the waiting, not the task: `cancelTask` does that.
   */
  awaitTask(taskId: string, options?: McpAwaitTaskOptions): Promise<CallToolResult> {
    return this.tasks.await(taskId, options);
  }

  /**
   * Asks the server to cancel a task; legacy: resolves the cancelled task (the server must declare
   * `capabilities.tasks.cancel`), modern: undefined once acknowledged.
   */
  cancelTask(taskId: string, options?: McpCallOptions): Promise<McpTaskInfo | undefined> {
    return this.tasks.cancel(taskId, options);
  }

  /** Legacy era only (`tasks/list`, paged like the other lists): the tasks the server keeps for this client. */
  listTasks(params: McpListParams = {}, options?: McpCallOptions): Promise<McpTaskInfo[]> {
    return this.tasks.list(params, options);
  }

  listResources(params: McpListParams = {}, options?: McpCallOptions): Promise<Resource[]> {
    return this.pages.collect('resources/list', 'resources', params, options);
  }

  listResourceTemplates(params: McpListParams = {}, options?: McpCallOptions): Promise<ResourceTemplate[]> {
    return this.pages.collect('resources/templates/list', 'resourceTemplates', params, options);
  }

  readResource(uri: string, options?: McpCallOptions): Promise<ReadResourceResult> {
    return this.request('resources/read', { uri }, options);
  }

  listPrompts(params: McpListParams = {}, options?: McpCallOptions): Promise<Prompt[]> {
    return this.pages.collect('prompts/list', 'prompts', params, options);
  }

  getPrompt(name: string, args: Record<string, string> = {}, options?: McpCallOptions): Promise<GetPromptResult> {
    return this.request('prompts/get', { name, arguments: args }, options);
  }

  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: McpCallOptions,
  ): Promise<CompleteResult> {
    return this.request('completion/complete', { ref, argument, ...(context ? { context } : {}) }, options);
  }

  /** Legacy: `logging/setLevel`. Modern: the level is sent in the `_meta` of every later request. */
  async setLogLevel(level: LoggingLevel, options?: McpCallOptions): Promise<void> {
    await this.connect();
    this.connection.useLogLevel(level);
    if (this.era === 'legacy') await this.request('logging/setLevel', { level }, options);
  }

  /** Legacy `resources/subscribe` (modern servers use `listen`). */
  async subscribe(uri: string, options?: McpCallOptions): Promise<void> {
    await this.requireEra('legacy', 'resources/subscribe', 'listen() in the modern era');
    await this.request('resources/subscribe', { uri }, options);
  }

  async unsubscribe(uri: string, options?: McpCallOptions): Promise<void> {
    await this.requireEra('legacy', 'resources/unsubscribe', 'listen() in the modern era');
    await this.request('resources/unsubscribe', { uri }, options);
  }

  /**
   * Modern `subscriptions/listen`: resolves once the server acknowledged the filter; the notifications reach the
   * responder (`@OnNotification`) tagged with the subscription id.
   */
  async listen(filter: {
    toolsListChanged?: boolean;
    promptsListChanged?: boolean;
    resourcesListChanged?: boolean;
    resourceSubscriptions?: string[];
  }): Promise<McpListenHandle> {
    await this.requireEra('modern', 'subscriptions/listen', 'subscribe() in the legacy era');
    return this.connection.calls.listen(filter);
  }

  // Helpers ---------------------------------------------------------------------------------------------------------

  private async requireEra(era: Era, method: string, instead: string): Promise<void> {
    await this.connect();
    this.connection.negotiator.requireEra(era, method, instead);
  }
}

import {
  CallToolResult,
  ClientCapabilities,
  ErrorCode,
  GetPromptResult,
  Implementation,
  InitializeResult,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  LATEST_LEGACY_REVISION,
  LegacyRevision,
  McpError,
  ReadResourceResult,
  Transport,
  classifyMessage,
  createInMemoryTransportPair,
  errorResponse,
  methodNotFound,
} from '@conduit-mcp/core';
import type { McpAuthInfo } from '../auth/mcp-auth-info.interface';
import { McpServer, hostOf } from '../mcp.server';
import { ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult } from './mcp-test.types';

// How long a test client waits for an answer unless told otherwise.
const DEFAULT_TEST_TIMEOUT_MS = 5_000;

/**
 * Answers a request the server sends the client (`elicitation/create`, `sampling/createMessage`, `roots/list`):
 * return the result; return `undefined` to answer -32601 (not handled); throw an `McpError` to answer with it (any
 * other throw answers -32603 with its message).
 *
 * @example
 * const onRequest: McpTestRequestHandler = (method) =>
 *   method === 'roots/list' ? { roots: [{ uri: 'file:///tmp' }] } : undefined;
 */
export type McpTestRequestHandler = (method: string, params: Record<string, unknown>) => unknown;

/**
 * Options of {@link McpTestClient}.
 *
 * @example
 * const options: McpTestClientOptions = {
 *   capabilities: { elicitation: {} },
 *   onRequest: () => ({ action: 'accept', content: { name: 'Ada' } }),
 *   timeoutMs: 1_000,
 * };
 */
export interface McpTestClientOptions {
  /** Client capabilities declared in `initialize` (declare `elicitation` to be asked for input). Default: none. */
  capabilities?: ClientCapabilities;
  /** Answers the server's requests to the client; without it they are answered -32601. */
  onRequest?: McpTestRequestHandler;
  /** How long each call waits for its answer, in milliseconds. Default: 5 s. */
  timeoutMs?: number;
  /** The legacy revision asked for in `initialize`. Default: the latest (`2025-11-25`). */
  protocolVersion?: LegacyRevision;
  /** Default: `{ name: 'conduit-mcp-testing', version: '0.0.0' }`. */
  clientInfo?: Implementation;
  /**
   * Who the session's requests speak for, as an authenticator would have established it over HTTP: handlers and
   * guards see it as `ctx.auth`, and the session and its tasks are bound to its principal (the subject, else
   * `client:<clientId>`). Default: none (an unauthenticated caller, as on stdio).
   *
   * @example
   * const client = await McpTestClient.connect(server, {
   *   auth: { subject: 'alice', scopes: ['notes:read'], claims: { sub: 'alice' } },
   * });
   */
  auth?: McpAuthInfo;
}

interface Pending {
  method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * An MCP client for tests, on an in-memory transport to one `McpServer` of the app: a legacy-era session (initialize,
 * then `notifications/initialized`), typed calls, the server's notifications collected in `notifications`. A
 * JSON-RPC error answer rejects with `McpError` (`code`, `message`, `data`); a call that gets no answer within
 * `timeoutMs` rejects with an Error naming the method (and is cancelled on the server).
 *
 * @example
 * const client = await McpTestClient.connect(moduleRef.get(McpServer));
 * const { tools } = await client.listTools();
 * await client.close();
 */
export class McpTestClient {
  /** The notifications the server sent this session, oldest first (clear it with `notifications.length = 0`). */
  readonly notifications: JsonRpcNotification[] = [];

  private initialized!: InitializeResult;
  private readonly pending = new Map<JsonRpcId, Pending>();
  // Waiting waitForNotification calls: each looks again on every notification, or fails with the reason of a close.
  private readonly watchers = new Set<(closed?: string) => void>();
  private readonly timeoutMs: number;
  private nextId = 1;
  private closed = false;

  private constructor(
    private readonly transport: Transport,
    private readonly options: McpTestClientOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TEST_TIMEOUT_MS;
    transport.onmessage = (message) => this.receive(message);
    transport.onclose = () => this.shut('the session was closed');
  }

  /**
   * Opens a session on `server` and initializes it; resolves once the server answered `initialize` and was sent
   * `notifications/initialized`.
   *
   * @example
   * const client = await McpTestClient.connect(server, {
   *   capabilities: { elicitation: {} },
   *   onRequest: (method) => (method === 'elicitation/create' ? { action: 'decline' } : undefined),
   * });
   */
  static async connect(server: McpServer, options: McpTestClientOptions = {}): Promise<McpTestClient> {
    const [ours, theirs] = createInMemoryTransportPair();
    const client = new McpTestClient(ours, options);
    hostOf(server).connect(theirs, 'memory', options.auth);
    try {
      client.initialized = await client.request<InitializeResult>('initialize', {
        protocolVersion: options.protocolVersion ?? LATEST_LEGACY_REVISION,
        capabilities: options.capabilities ?? {},
        clientInfo: options.clientInfo ?? { name: 'conduit-mcp-testing', version: '0.0.0' },
      });
      await ours.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    } catch (error) {
      await client.close();
      throw error;
    }
    return client;
  }

  /** What the server answered to `initialize` (its capabilities, `serverInfo`, `instructions`). */
  get initializeResult(): InitializeResult {
    return this.initialized;
  }

  /** One page of the tools this session may see (pass `nextCursor` for the next). */
  listTools(cursor?: string): Promise<ListToolsResult> {
    return this.request('tools/list', cursor === undefined ? undefined : { cursor });
  }

  /**
   * Calls a tool. A refusal (an unknown tool, a guard's, arguments past the server's bounds) rejects with `McpError`;
   * an error the tool reports (`McpToolError`, arguments its input schema refuses) resolves with `isError: true`.
   *
   * @example
   * const result = await client.callTool('add', { a: 1, b: 2 });
   */
  callTool(name: string, args?: Record<string, unknown>): Promise<CallToolResult> {
    return this.request('tools/call', args === undefined ? { name } : { name, arguments: args });
  }

  /** One page of the static resources. */
  listResources(cursor?: string): Promise<ListResourcesResult> {
    return this.request('resources/list', cursor === undefined ? undefined : { cursor });
  }

  /** One page of the resource templates. */
  listResourceTemplates(cursor?: string): Promise<ListResourceTemplatesResult> {
    return this.request('resources/templates/list', cursor === undefined ? undefined : { cursor });
  }

  /** Reads a resource by URI (a static one, or one a template matches). */
  readResource(uri: string): Promise<ReadResourceResult> {
    return this.request('resources/read', { uri });
  }

  /** One page of the prompts. */
  listPrompts(cursor?: string): Promise<ListPromptsResult> {
    return this.request('prompts/list', cursor === undefined ? undefined : { cursor });
  }

  /** Gets a prompt with its arguments (strings, as the protocol has them). */
  getPrompt(name: string, args?: Record<string, string>): Promise<GetPromptResult> {
    return this.request('prompts/get', args === undefined ? { name } : { name, arguments: args });
  }

  /**
   * Sends any request and resolves with its raw `result`.
   *
   * @example
   * await client.request('tools/call', { name: 'admin_reset', _meta: { token: 'open-sesame' } });
   */
  request<R = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<R> {
    if (this.closed) return Promise.reject(new Error(`McpTestClient: cannot send ${method}, the client is closed`));
    const id = this.nextId++;
    const answered = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => this.giveUp(id), this.timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
    });
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) };
    this.transport.send(message).catch((error: Error) => this.settle(id, undefined, error));
    return answered as Promise<R>;
  }

  /**
   * Resolves with the first notification of `method` the server sent this session, already or within `timeoutMs`.
   *
   * @example
   * server.setToolEnabled('add', false);
   * await client.waitForNotification('notifications/tools/list_changed');
   */
  waitForNotification(method: string, timeoutMs = this.timeoutMs): Promise<JsonRpcNotification> {
    const found = () => this.notifications.find((notification) => notification.method === method);
    return new Promise((resolve, reject) => {
      const watch = (closed?: string) => {
        const notification = found();
        if (!notification && !closed) return;
        clearTimeout(timer);
        this.watchers.delete(watch);
        if (notification) resolve(notification);
        else reject(new Error(`McpTestClient: no ${method} notification, ${closed}`));
      };
      const timer = setTimeout(() => {
        this.watchers.delete(watch);
        reject(new Error(`McpTestClient: no ${method} notification within ${timeoutMs} ms`));
      }, timeoutMs);
      this.watchers.add(watch);
      watch(this.closed ? 'the client is closed' : undefined);
    });
  }

  /** Ends the session; calls still waiting reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.shut('the client was closed');
    await this.transport.close();
  }

  private receive(value: unknown): void {
    const classified = classifyMessage(value);
    if (classified.kind === 'response') {
      const response = classified.message;
      if ('error' in response) {
        const { code, message, data } = response.error;
        this.settle(response.id, undefined, new McpError(code, message, data));
      } else {
        this.settle(response.id, response.result);
      }
    } else if (classified.kind === 'notification') {
      this.notifications.push(classified.message);
      this.watchers.forEach((watch) => watch());
    } else if (classified.kind === 'request') {
      void this.answer(classified.message);
    } else if (classified.id !== null) {
      this.settle(classified.id, undefined, new Error(`McpTestClient: invalid answer: ${classified.error.message}`));
    }
  }

  private async answer(request: JsonRpcRequest): Promise<void> {
    let response: JsonRpcResponse;
    try {
      const result = await this.options.onRequest?.(request.method, request.params ?? {});
      if (result === undefined) throw methodNotFound(request.method);
      response = { jsonrpc: '2.0', id: request.id, result: result as Record<string, unknown> };
    } catch (error) {
      response = errorResponse(
        request.id,
        error instanceof McpError
          ? error
          : { code: ErrorCode.InternalError, message: error instanceof Error ? error.message : String(error) },
      );
    }
    if (!this.closed) await this.transport.send(response as JsonRpcMessage).catch(() => undefined);
  }

  // An error answer without an id (the server could not read the request) settles nothing: the call times out.
  private settle(id: JsonRpcId | undefined, result?: Record<string, unknown>, error?: Error): void {
    if (id === undefined) return;
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (error) pending.reject(error);
    else pending.resolve(result ?? {});
  }

  private giveUp(id: number): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.settle(id, undefined, new Error(`McpTestClient: no answer to ${pending.method} within ${this.timeoutMs} ms`));
    // So the handler still running on the server is aborted, as a real client would have it.
    if (pending.method !== 'initialize') {
      const cancel = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: id } };
      this.transport.send(cancel).catch(() => undefined);
    }
  }

  private shut(reason: string): void {
    this.closed = true;
    for (const [id, pending] of [...this.pending]) {
      this.settle(id, undefined, new Error(`McpTestClient: ${pending.method} got no answer, ${reason}`));
    }
    this.watchers.forEach((watch) => watch(reason));
  }
}

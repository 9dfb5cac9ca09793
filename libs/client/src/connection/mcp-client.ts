import {
  Era,
  ErrorCode,
  Implementation,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcResponse,
  LATEST_LEGACY_REVISION,
  LATEST_MODERN_REVISION,
  LoggingLevel,
  META_SUBSCRIPTION_ID,
  MODERN_REVISIONS,
  MRTR_METHODS,
  ServerCapabilities,
  classifyMessage,
  isLegacyRevision,
  isModernRevision,
  sanitizeText,
} from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { rpcErrorMessage } from '../errors/rpc-error.message';
import { ClientEventScope, reportInput, reportRequest, requestsObserved } from '../telemetry/client-telemetry';
import { McpClientModuleOptions, McpServerConfig } from '../interfaces/mcp-client-options.interface';
import { ClientTransport } from '../transports/client-transport.interface';
import { SessionExpiredError } from '../transports/client-transport.errors';
import { isSyntheticResponse } from '../transports/synthetic-response';
import { INPUT_CAPABILITY, McpInputContext, McpInputMethod, McpInputResponder } from './input-responder.interface';
import { PendingCall } from './pending-call';
import { DEFAULT_MAX_SERVER_REQUESTS, ServerRequestRunner, handlerTimeoutMs } from './server-request.runner';
import { ModernEnvelope } from './modern-envelope';
import { DEFAULT_INPUT_ROUNDS, InputRounds } from './input-rounds';
import { McpCallOptions } from './mcp-call-options';

/** What `subscriptions/listen` (modern) returns once the server acknowledged it. */
export interface McpListenHandle {
  /** The part of the filter the server agreed to honour. */
  acknowledged: Record<string, unknown>;
  /** Resolves when the subscription ends: `graceful` (the server ended it with a result) or `closed`. */
  closed: Promise<'graceful' | 'closed'>;
  close(): void;
}

export type McpClientState = 'idle' | 'connecting' | 'connected' | 'closed';

const DEFAULT_TIMEOUT_MS = 60_000;
const PROBE_TIMEOUT_MS = 10_000;

/**
 * A connection to one MCP server, in whichever era it speaks: requests with deadlines, cancellation and progress;
 * legacy server requests answered through the responder; modern `input_required` results fulfilled in the calling
 * flow and retried (MRTR).
 */
export class McpClient {
  state: McpClientState = 'idle';
  era: Era | undefined;
  protocolVersion: string | undefined;
  serverCapabilities: ServerCapabilities = {};
  serverInfo: Implementation | undefined;
  instructions: string | undefined;

  private transport: ClientTransport | undefined;
  private readonly pending = new Map<JsonRpcId, PendingCall>();
  private readonly listens = new Map<JsonRpcId, (acknowledged: Record<string, unknown>) => void>();
  private readonly runner: ServerRequestRunner;
  /** `Mcp-Param-*` headers of the tools seen in `tools/list` (modern era). */
  private readonly envelope = new ModernEnvelope({
    era: () => this.era,
    revision: () => this.protocolVersion,
    capabilities: () => this.responder.capabilities(this.id),
    clientInfo: () => this.clientInfo(),
    logLevel: () => this.logLevel,
  });
  private readonly rounds: InputRounds;
  private nextId = 0;
  private logLevel: LoggingLevel | undefined;
  private connecting: Promise<void> | undefined;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: McpClientModuleOptions,
    private readonly responder: McpInputResponder,
    private readonly createTransport: (config: McpServerConfig['transport']) => ClientTransport,
  ) {
    this.runner = new ServerRequestRunner(
      options.maxServerRequests ?? DEFAULT_MAX_SERVER_REQUESTS,
      (method) => handlerTimeoutMs(method, options),
      (response) => void this.write(response).catch(() => undefined),
    );
    this.rounds = new InputRounds(
      {
        send: (method, params, callOptions) => this.send(method, params, callOptions),
        capabilities: () => this.responder.capabilities(this.id),
        answer: (method, params, assigns, signal) =>
          reportInput(this.eventScope(method), signal, () =>
            this.responder.answer(method, params, this.context('modern', undefined, assigns, signal)),
          ),
      },
      options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      options.maxInputRounds ?? DEFAULT_INPUT_ROUNDS,
    );
  }

  get id(): string {
    return this.config.id;
  }

  /** Connects and negotiates the era (once; later calls wait for the first). */
  connect(): Promise<void> {
    if (this.state === 'connected') return Promise.resolve();
    if (this.connecting) return this.connecting;
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.runner.cancelAll();
    for (const call of this.pending.values()) call.reject(new McpClientError('transport', 'Connection closed'));
    this.pending.clear();
    await this.transport?.close().catch(() => undefined);
  }

  /**
   * Sends a request and resolves with its result; in the modern era `input_required` rounds are answered first. The
   * call's `timeout` counts the time on the wire across rounds (answering questions pauses it, as in the legacy era);
   * `maxTotalTimeout` bounds the whole call, answers included.
   */
  async request(
    method: string,
    params: Record<string, unknown> = {},
    options: McpCallOptions = {},
  ): Promise<Record<string, unknown>> {
    await this.connect();
    if (this.era !== 'modern' || !MRTR_METHODS.has(method)) return this.send(method, params, options);
    return this.rounds.run(method, params, options);
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

  /** One page of tools (with `cursor`), or every page when `cursor` is undefined and `all` is true (default). */
  async listTools(
    params: { cursor?: string; all?: boolean } = {},
    options?: McpCallOptions,
  ): Promise<Array<Record<string, unknown>>> {
    const tools = await this.list('tools/list', 'tools', params, options);
    // A tool whose x-mcp-header declarations are invalid cannot be called correctly over HTTP: leave it out.
    return tools.filter((tool) => this.envelope.learnTool(tool));
  }

  callTool(
    name: string,
    args: Record<string, unknown> = {},
    options?: McpCallOptions,
  ): Promise<Record<string, unknown>> {
    return this.request('tools/call', { name, arguments: args }, options);
  }

  listResources(
    params: { cursor?: string; all?: boolean } = {},
    options?: McpCallOptions,
  ): Promise<Array<Record<string, unknown>>> {
    return this.list('resources/list', 'resources', params, options);
  }

  listResourceTemplates(
    params: { cursor?: string; all?: boolean } = {},
    options?: McpCallOptions,
  ): Promise<Array<Record<string, unknown>>> {
    return this.list('resources/templates/list', 'resourceTemplates', params, options);
  }

  readResource(uri: string, options?: McpCallOptions): Promise<Record<string, unknown>> {
    return this.request('resources/read', { uri }, options);
  }

  listPrompts(
    params: { cursor?: string; all?: boolean } = {},
    options?: McpCallOptions,
  ): Promise<Array<Record<string, unknown>>> {
    return this.list('prompts/list', 'prompts', params, options);
  }

  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options?: McpCallOptions,
  ): Promise<Record<string, unknown>> {
    return this.request('prompts/get', { name, arguments: args }, options);
  }

  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: McpCallOptions,
  ): Promise<Record<string, unknown>> {
    return this.request('completion/complete', { ref, argument, ...(context ? { context } : {}) }, options);
  }

  /** Legacy: `logging/setLevel`. Modern: the level is sent in the `_meta` of every later request. */
  async setLogLevel(level: LoggingLevel, options?: McpCallOptions): Promise<void> {
    await this.connect();
    this.logLevel = level;
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
    const controller = new AbortController();
    const id = this.newId();
    const acknowledged = new Promise<Record<string, unknown>>((resolve) => this.listens.set(id, resolve));
    const closed = this.send(
      'subscriptions/listen',
      { notifications: filter },
      { signal: controller.signal, timeout: 2 ** 31 - 1 },
      id,
    ).then(
      () => 'graceful' as const,
      () => 'closed' as const,
    );
    const ack = await Promise.race([acknowledged, closed.then(() => undefined)]);
    this.listens.delete(id);
    if (!ack) throw new McpClientError('protocol', 'The server ended the subscription before acknowledging it');
    return { acknowledged: ack, closed, close: () => controller.abort() };
  }

  // Connection -----------------------------------------------------------------------------------------------------

  private async open(): Promise<void> {
    if (this.state === 'closed') throw new McpClientError('transport', 'Client closed');
    this.state = 'connecting';
    const transport = (this.transport = this.createTransport(this.config.transport));
    transport.onmessage = (message, info) => this.onMessage(message, info?.relatedRequestId);
    transport.onerror = (error) => {
      // The server forgot our legacy session (HTTP 404): open a new one; the request that met the 404 failed.
      if (error instanceof SessionExpiredError && this.era === 'legacy' && this.state === 'connected')
        this.reinitialize();
    };
    transport.onclose = () => {
      if (this.state === 'closed') return;
      this.state = 'idle';
      const reason = transport.closeReason;
      for (const call of this.pending.values())
        call.reject(
          new McpClientError('transport', reason?.message ?? 'Connection closed by the server', undefined, undefined, {
            cause: reason,
          }),
        );
      this.pending.clear();
      this.runner.cancelAll();
    };
    try {
      await transport.start();
      await this.negotiate();
      this.state = 'connected';
    } catch (error) {
      this.state = 'idle';
      await transport.close().catch(() => undefined);
      throw error instanceof McpClientError
        ? error
        : new McpClientError(
            'transport',
            `Cannot connect to ${this.id}: ${(error as Error).message}`,
            undefined,
            undefined,
            { cause: error },
          );
    }
  }

  private reinitialize(): void {
    this.state = 'connecting';
    this.connecting = this.initialize(this.protocolVersion ?? LATEST_LEGACY_REVISION)
      .then(
        () => void (this.state = 'connected'),
        () => void (this.state = 'idle'),
      )
      .finally(() => (this.connecting = undefined));
  }

  private async negotiate(): Promise<void> {
    const era = this.config.era ?? 'auto';
    if (era === 'modern' || isModernRevision(era))
      return this.useModern(era === 'modern' ? LATEST_MODERN_REVISION : era);
    if (era === 'legacy' || isLegacyRevision(era))
      return this.initialize(era === 'legacy' ? LATEST_LEGACY_REVISION : era);
    if (era !== 'auto') throw new McpClientError('protocol', `Unknown era or revision "${era}" for server ${this.id}`);
    // auto: probe with server/discover; a modern answer (or a modern error naming a modern revision) keeps us modern.
    this.era = 'modern';
    this.protocolVersion = LATEST_MODERN_REVISION;
    if (this.transport) this.transport.protocolVersion = LATEST_MODERN_REVISION;
    try {
      const result = await this.send('server/discover', {}, { timeout: PROBE_TIMEOUT_MS });
      const modern = modernOf(result.supportedVersions);
      if (modern) return this.adoptDiscovery(modern, result);
    } catch (error) {
      const supported =
        error instanceof McpClientError && error.code === ErrorCode.UnsupportedProtocolVersion
          ? (error.data as { supported?: unknown })?.supported
          : undefined;
      const modern = modernOf(supported);
      if (modern) return this.useModern(modern);
    }
    this.era = undefined;
    if (this.transport) this.transport.protocolVersion = undefined;
    return this.initialize(LATEST_LEGACY_REVISION);
  }

  /** Speaks the modern era at `revision`; a -32022 naming another modern revision of ours is retried with it once. */
  private async useModern(revision: string, retried = false): Promise<void> {
    this.era = 'modern';
    this.protocolVersion = revision;
    if (this.transport) this.transport.protocolVersion = revision;
    try {
      this.adoptDiscovery(revision, await this.send('server/discover', {}, { timeout: PROBE_TIMEOUT_MS }));
    } catch (error) {
      const supported =
        error instanceof McpClientError && error.code === ErrorCode.UnsupportedProtocolVersion
          ? (error.data as { supported?: unknown })?.supported
          : undefined;
      const other = modernOf(supported);
      if (retried || !other) throw error;
      await this.useModern(other, true);
    }
  }

  private adoptDiscovery(revision: string, result: Record<string, unknown>): void {
    this.era = 'modern';
    this.protocolVersion = revision;
    this.serverCapabilities = (result.capabilities as ServerCapabilities) ?? {};
    this.instructions = typeof result.instructions === 'string' ? result.instructions : undefined;
    const meta = result._meta as Record<string, unknown> | undefined;
    this.serverInfo = meta?.['io.modelcontextprotocol/serverInfo'] as Implementation | undefined;
  }

  private async initialize(revision: string): Promise<void> {
    this.era = 'legacy';
    const result = await this.send('initialize', {
      protocolVersion: revision,
      capabilities: this.responder.capabilities(this.id),
      clientInfo: this.clientInfo(),
    });
    const negotiated = result.protocolVersion;
    if (!isLegacyRevision(negotiated)) {
      throw new McpClientError(
        'protocol',
        `Server ${this.id} answered initialize with an unsupported revision ${sanitizeText(String(negotiated), 32)}`,
      );
    }
    this.protocolVersion = negotiated;
    if (this.transport) this.transport.protocolVersion = negotiated;
    this.serverCapabilities = (result.capabilities as ServerCapabilities) ?? {};
    this.serverInfo = result.serverInfo as Implementation | undefined;
    this.instructions = typeof result.instructions === 'string' ? result.instructions : undefined;
    await this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const standalone = (this.transport as { openStandaloneStream?: () => Promise<void> } | undefined)
      ?.openStandaloneStream;
    if (standalone) void standalone.call(this.transport).catch(() => undefined);
  }

  /** Sends one request and waits for its response (no MRTR). */
  private send(
    method: string,
    params: Record<string, unknown>,
    options: McpCallOptions = {},
    id: JsonRpcId = this.newId(),
  ): Promise<Record<string, unknown>> {
    if (!this.transport) return Promise.reject(new McpClientError('transport', 'Not connected'));
    if (options.signal?.aborted) return Promise.reject(new McpClientError('cancelled', `${method} was cancelled`));
    const started = requestsObserved() ? performance.now() : undefined;
    const withMeta = this.envelope.params(params, options.onProgress ? id : undefined);
    // Aborting the send closes the request's stream on HTTP (modern cancellation) and stops any resumption; stdio has
    // no per-request stream, and an AbortController per call was a measurable share of a stdio call.
    const controller = this.transport.origin !== undefined ? new AbortController() : undefined;
    const call = new PendingCall(
      id,
      method,
      options.timeout ?? this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      options.maxTotalTimeout,
      options.assigns ?? this.options.assigns ?? {},
      options.onProgress,
      (expired) => this.abandon(expired, 'Timed out', controller),
    );
    this.pending.set(id, call);
    const onAbort = () => {
      this.abandon(call, 'Cancelled by the client', controller);
      call.reject(new McpClientError('cancelled', `${method} was cancelled`));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    this.transport
      .send({ jsonrpc: '2.0', id, method, params: withMeta } as JsonRpcRequest, {
        signal: controller?.signal,
        headers: this.envelope.headers(method, withMeta),
      })
      .catch((error: Error) =>
        call.reject(
          new McpClientError('transport', `Cannot send ${method}: ${error.message}`, undefined, undefined, {
            cause: error,
          }),
        ),
      );
    const settled = call.promise.finally(() => {
      options.signal?.removeEventListener('abort', onAbort);
      this.pending.delete(id);
    });
    return started === undefined ? settled : reportRequest(settled, this.eventScope(method), started);
  }

  private eventScope(method: string): ClientEventScope {
    return { client: this.options.name, server: this.id, method, era: this.era ?? 'legacy' };
  }

  /**
   * A call we gave up on (timeout, cancel): tell the server, as the era wants. Modern HTTP cancels by closing the
   * request's stream; otherwise a notification, and the stream stays open so that the server can still cancel the
   * questions it asked on it.
   */
  private abandon(call: PendingCall, reason: string, stream: AbortController | undefined): void {
    this.pending.delete(call.id);
    if (this.era === 'modern' && stream) return stream.abort(); // modern HTTP
    if (call.method !== 'initialize') {
      void this.write({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: call.id, reason },
      }).catch(() => undefined);
    }
  }

  private context(
    era: Era,
    related: PendingCall | undefined,
    assigns: Record<string, unknown> | undefined,
    signal?: AbortSignal,
  ): McpInputContext {
    return {
      client: this.options.name,
      serverId: this.id,
      era,
      assigns: assigns ?? related?.assigns ?? this.options.assigns ?? {},
      relatedRequestId: related?.id,
      signal: signal ?? new AbortController().signal,
      callsInFlight: this.pending.size,
      // The configured origin wins: the operator knows the server's public origin behind a proxy or tunnel.
      origin: this.options.elicitation?.origin ?? this.transport?.origin,
    };
  }

  // Incoming messages ----------------------------------------------------------------------------------------------

  private onMessage(raw: unknown, relatedRequestId: JsonRpcId | undefined): void {
    const classified = classifyMessage(raw);
    switch (classified.kind) {
      case 'response':
        return this.onResponse(classified.message, isSyntheticResponse(raw));
      case 'request':
        return this.onServerRequest(classified.message, relatedRequestId);
      case 'notification':
        return this.onNotification(classified.message.method, classified.message.params ?? {});
      case 'invalid':
        return;
    }
  }

  private onResponse(response: JsonRpcResponse, synthetic: boolean): void {
    const call = response.id === undefined ? undefined : this.pending.get(response.id);
    if (!call) return;
    if ('error' in response) {
      const { code, message, data } = response.error;
      // The transport answers for a server that could not (HTTP error, oversize, dropped stream): not the server's word.
      const kind = synthetic ? 'transport' : 'rpc';
      call.reject(
        new McpClientError(
          kind,
          synthetic ? sanitizeText(message, 512) : rpcErrorMessage(code, message, data),
          code,
          data,
        ),
      );
    } else {
      call.resolve(response.result);
    }
  }

  private onServerRequest(request: JsonRpcRequest, relatedRequestId: JsonRpcId | undefined): void {
    if (this.era === 'modern') {
      // 2026-07-28 has no server-to-client requests: input comes as input_required results.
      void this.write({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: ErrorCode.MethodNotFound, message: 'Server requests are not part of the modern era' },
      }).catch(() => undefined);
      return;
    }
    // On stdio nothing names the related call: with exactly one call in flight, it is that one.
    const related =
      (relatedRequestId !== undefined ? this.pending.get(relatedRequestId) : undefined) ??
      (this.transport?.origin === undefined && this.pending.size === 1 ? [...this.pending.values()][0] : undefined);
    const capability = INPUT_CAPABILITY[request.method as McpInputMethod];
    if (capability && !this.responder.capabilities(this.id)[capability]) {
      void this.write({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: ErrorCode.MethodNotFound, message: `This client does not handle ${request.method}` },
      }).catch(() => undefined);
      return;
    }
    // A question outlives no call: when the call it belongs to ends, its handler is stopped.
    const stop = () => this.runner.cancel(request.id);
    related?.promise.then(stop, stop);
    this.runner.run(request, async (method, params, signal) => {
      related?.pause();
      try {
        return await reportInput(this.eventScope(method), signal, () =>
          this.responder.answer(method, params, this.context('legacy', related, undefined, signal)),
        );
      } finally {
        related?.resume();
      }
    });
  }

  private onNotification(method: string, params: Record<string, unknown>): void {
    if (method === 'notifications/progress') {
      const call = this.pending.get(params.progressToken as JsonRpcId);
      if (call?.onProgress && typeof params.progress === 'number') {
        call.onProgress({
          progress: params.progress,
          total: params.total as number | undefined,
          message: params.message as string | undefined,
        });
      }
      return;
    }
    if (method === 'notifications/cancelled') return this.runner.cancel(params.requestId as JsonRpcId);
    if (method === 'notifications/subscriptions/acknowledged') {
      const id = (params._meta as Record<string, unknown> | undefined)?.[META_SUBSCRIPTION_ID] as JsonRpcId;
      this.listens.get(id)?.((params.notifications as Record<string, unknown>) ?? {});
      return;
    }
    this.responder.notify(method, params, { client: this.options.name, serverId: this.id, era: this.era ?? 'legacy' });
  }

  // Helpers ---------------------------------------------------------------------------------------------------------

  private async list(
    method: string,
    key: string,
    params: { cursor?: string; all?: boolean },
    options?: McpCallOptions,
  ): Promise<Array<Record<string, unknown>>> {
    const items: Array<Record<string, unknown>> = [];
    let cursor = params.cursor;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.request(method, cursor === undefined ? {} : { cursor }, options);
      items.push(...((page[key] as Array<Record<string, unknown>>) ?? []));
      const next = page.nextCursor;
      if (params.all === false || typeof next !== 'string' || seen.has(next)) return items;
      seen.add(next);
      cursor = next;
    }
  }

  // `instead`: how the negotiated era does the same, for the message.
  private async requireEra(era: Era, method: string, instead: string): Promise<void> {
    await this.connect();
    if (this.era === era) return;
    throw new McpClientError(
      'protocol',
      `${method} is part of the ${era} era only, and this connection negotiated the ${this.era} era ` +
        `(${this.protocolVersion}); use ${instead}, or pin the server's era with era: '${era}'`,
    );
  }

  private clientInfo(): Implementation {
    return { name: this.options.name, version: this.options.version ?? '0.0.0' };
  }

  private newId(): JsonRpcId {
    return ++this.nextId;
  }

  private write(message: JsonRpcMessage): Promise<void> {
    return this.transport ? this.transport.send(message) : Promise.resolve();
  }
}

/** The newest modern revision of ours that a list of versions names. */
function modernOf(versions: unknown): string | undefined {
  if (!Array.isArray(versions)) return undefined;
  return MODERN_REVISIONS.find((revision) => versions.includes(revision));
}

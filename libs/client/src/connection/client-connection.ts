import { LoggingLevel } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { McpClientModuleOptions, McpServerConfig } from '../interfaces/mcp-client-options.interface';
import { ClientTransport } from '../transports/client-transport.interface';
import { SessionExpiredError } from '../transports/client-transport.errors';
import { CallTable, DEFAULT_TIMEOUT_MS } from './call-table';
import { ConnectionHost } from './connection.host';
import { EraNegotiator } from './era.negotiator';
import { InputAnswerHost } from './input-requests.answerer';
import { McpInputResponder } from './input-responder.interface';
import { DEFAULT_INPUT_ROUNDS, InputRounds } from './input-rounds';
import { McpClientState } from './mcp-client.types';
import { ModernEnvelope } from './modern-envelope';
import { ServerMessageRouter } from './server-message.router';
import { DEFAULT_MAX_SERVER_REQUESTS, ServerRequestRunner, handlerTimeoutMs } from './server-request.runner';
import { TaskWatches } from './task-watches';

/**
 * The life of one client's connection to its server: it builds the parts around the current transport, opens the
 * transport and negotiates the era, reopens a legacy session the server forgot, and fails what is in flight when the
 * connection ends.
 */
export class ClientConnection {
  /** `Mcp-Param-*` headers of the tools seen in `tools/list` (modern era). */
  readonly envelope: ModernEnvelope;
  readonly calls: CallTable;
  readonly negotiator: EraNegotiator;
  readonly rounds: InputRounds;
  /** Answers modern input requests (an MRTR round's, a task's) through the responder. */
  readonly inputs: InputAnswerHost;
  /** The tasks awaited on this connection (legacy era). */
  readonly tasks = new TaskWatches();
  private readonly runner: ServerRequestRunner;
  private readonly router: ServerMessageRouter;
  private status: McpClientState = 'idle';
  private current: ClientTransport | undefined;
  private logLevel: LoggingLevel | undefined;
  private connecting: Promise<void> | undefined;

  constructor(
    private readonly config: McpServerConfig,
    options: McpClientModuleOptions,
    responder: McpInputResponder,
    private readonly createTransport: (config: McpServerConfig['transport']) => ClientTransport,
  ) {
    const host: ConnectionHost = {
      transport: () => this.current,
      write: (message) => (this.current ? this.current.send(message) : Promise.resolve()),
      era: () => this.negotiator.era,
      revision: () => this.negotiator.protocolVersion,
      capabilities: () => responder.capabilities(config.id),
      clientInfo: () => ({ name: options.name, version: options.version ?? '0.0.0' }),
      logLevel: () => this.logLevel,
      eventScope: (method) => ({
        client: options.name,
        server: config.id,
        method,
        era: this.negotiator.era ?? 'legacy',
      }),
    };
    this.envelope = new ModernEnvelope(host, options.maxListItems, options.maxListBytes);
    this.calls = new CallTable(host, this.envelope, options);
    this.negotiator = new EraNegotiator(config.id, config.era, host, this.calls);
    this.runner = new ServerRequestRunner(
      options.maxServerRequests ?? DEFAULT_MAX_SERVER_REQUESTS,
      (method) => handlerTimeoutMs(method, options),
      (response) => void host.write(response).catch(() => undefined),
    );
    this.router = new ServerMessageRouter(
      config.id,
      options,
      host,
      this.calls,
      this.runner,
      responder,
      this.envelope,
      this.tasks,
    );
    this.inputs = {
      capabilities: host.capabilities,
      answer: (method, params, assigns, signal) => this.router.answer(method, params, assigns, signal),
    };
    this.rounds = new InputRounds(
      {
        send: (method, params, callOptions) => this.calls.send(method, params, callOptions),
        capabilities: this.inputs.capabilities,
        answer: this.inputs.answer,
      },
      options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      options.maxInputRounds ?? DEFAULT_INPUT_ROUNDS,
    );
  }

  get state(): McpClientState {
    return this.status;
  }

  /** The transport of the latest connect; undefined before the first. */
  get transport(): ClientTransport | undefined {
    return this.current;
  }

  /** Modern era: sent in the `_meta` of every later request. */
  useLogLevel(level: LoggingLevel): void {
    this.logLevel = level;
  }

  connect(): Promise<void> {
    if (this.status === 'connected') return Promise.resolve();
    if (this.connecting) return this.connecting;
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  async close(): Promise<void> {
    if (this.status === 'closed') return;
    this.status = 'closed';
    this.runner.cancelAll();
    this.calls.rejectAll(() => new McpClientError('transport', 'Connection closed'));
    await this.current?.close().catch(() => undefined);
  }

  private async open(): Promise<void> {
    if (this.status === 'closed') throw new McpClientError('transport', 'Client closed');
    this.status = 'connecting';
    const transport = (this.current = this.createTransport(this.config.transport));
    transport.onmessage = (message, info) => this.router.onMessage(message, info?.relatedRequestId);
    transport.onerror = (error) => {
      // The server forgot our legacy session (HTTP 404): open a new one; the request that met the 404 failed.
      if (error instanceof SessionExpiredError && this.negotiator.era === 'legacy' && this.status === 'connected')
        this.reinitialize();
    };
    transport.onclose = () => {
      if (this.status === 'closed') return;
      this.status = 'idle';
      const reason = transport.closeReason;
      this.calls.rejectAll(
        () =>
          new McpClientError('transport', reason?.message ?? 'Connection closed by the server', undefined, undefined, {
            cause: reason,
          }),
      );
      this.runner.cancelAll();
    };
    try {
      await transport.start();
      await this.negotiator.negotiate();
      this.status = 'connected';
    } catch (error) {
      this.status = 'idle';
      await transport.close().catch(() => undefined);
      throw error instanceof McpClientError
        ? error
        : new McpClientError(
            'transport',
            `Cannot connect to ${this.config.id}: ${(error as Error).message}`,
            undefined,
            undefined,
            { cause: error },
          );
    }
  }

  private reinitialize(): void {
    this.status = 'connecting';
    this.connecting = this.negotiator
      .reinitialize()
      .then(
        () => void (this.status = 'connected'),
        () => void (this.status = 'idle'),
      )
      .finally(() => (this.connecting = undefined));
  }
}

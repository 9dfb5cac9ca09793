import type { IncomingMessage } from 'node:http';
import {
  ClientCapabilities,
  Era,
  Implementation,
  JsonRpcId,
  LOGGING_LEVELS,
  LoggingLevel,
  Meta,
} from '@conduit-mcp/core';
import { McpSession } from '../session/mcp-session';
import { TransportFacts } from '../dispatch/transport-facts.interface';
import { MessageSink } from '../session/message-sink.interface';
import { RequestCancellation } from '../session/request-cancellation';
import { McpInput } from './mcp-input.interface';
import { McpRequestState } from './mcp-request-state';

/** What the dispatcher knows about a request when it builds its context. */
export interface McpRequestContextInit {
  server: string;
  method: string;
  requestId: JsonRpcId;
  era: Era;
  protocolVersion: string;
  session: McpSession;
  stream: MessageSink | undefined;
  transport: TransportFacts;
  cancellation: RequestCancellation;
  meta: Meta;
  input: McpInput;
  state: McpRequestState;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities;
  /** The least severe level sent to the client right now; null sends nothing. */
  logThreshold: () => LoggingLevel | null;
}

/** The context of one MCP request, handed to handlers through `@McpCtx()` and to guards and interceptors. */
export class McpRequestContext {
  /** Server name (`McpModule.forRoot({ name })`). */
  readonly server: string;
  /** The JSON-RPC method: `tools/call`, `resources/read`, `prompts/get`, `tools/list`… */
  readonly method: string;
  readonly requestId: JsonRpcId;
  readonly era: Era;
  /** The protocol revision in force for this request. */
  readonly protocolVersion: string;
  /** The request's `params._meta`, as the client sent it. */
  readonly meta: Meta;
  /** What the transport knows of the exchange that carried the request: kind, headers, Origin. */
  readonly transport: TransportFacts;
  /** Questions to the client: elicitation, sampling, roots. */
  readonly input: McpInput;
  /**
   * Data kept across the rounds of a modern-era multi round-trip request (sealed into `requestState`); JSON values.
   */
  readonly state: McpRequestState;
  /** Who the client says it is (legacy: from `initialize`; modern: from this request's `_meta`). */
  readonly clientInfo: Implementation | undefined;
  /** What the client can do (legacy: from `initialize`; modern: from this request's `_meta`, never inferred). */
  readonly clientCapabilities: ClientCapabilities;
  /** The tool, resource or prompt this request addresses, once the dispatcher resolved it. */
  target: { kind: 'tool' | 'resource' | 'prompt' | 'completion'; name: string } | undefined;

  private readonly session: McpSession;
  private readonly cancellation: RequestCancellation;
  private readonly stream: MessageSink | undefined;
  private readonly logThreshold: () => LoggingLevel | null;
  private lastProgress = -Infinity;

  constructor(init: McpRequestContextInit) {
    this.server = init.server;
    this.method = init.method;
    this.requestId = init.requestId;
    this.era = init.era;
    this.protocolVersion = init.protocolVersion;
    this.session = init.session;
    this.stream = init.stream;
    this.transport = init.transport;
    this.cancellation = init.cancellation;
    this.meta = init.meta;
    this.input = init.input;
    this.state = init.state;
    this.clientInfo = init.clientInfo;
    this.clientCapabilities = init.clientCapabilities;
    this.logThreshold = init.logThreshold;
  }

  /** Aborted when the client cancels the request, the session ends, or the server shuts down. */
  /** The HTTP request that carried the message, when the transport is HTTP (Streamable HTTP or HTTP+SSE). */
  get httpRequest(): IncomingMessage | undefined {
    const { kind, raw } = this.transport;
    return kind === 'streamable-http' || kind === 'sse' ? (raw as IncomingMessage | undefined) : undefined;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  /** Whether the request was cancelled: `signal.aborted`, without making the signal. */
  get cancelled(): boolean {
    return this.cancellation.aborted;
  }

  /** The session id (legacy era; a stateless or modern request has a throw-away one). */
  get sessionId(): string {
    return this.session.id;
  }

  /**
   * Reports progress when the client asked for it (`_meta.progressToken`). Values that do not increase are dropped,
   * since the specification requires progress to increase.
   */
  progress(progress: number, total?: number, message?: string): void {
    const progressToken = this.meta.progressToken;
    if (progressToken === undefined || !(progress > this.lastProgress) || this.cancelled) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.send('notifications/progress', params);
  }

  /**
   * Closes the HTTP connection of this request's SSE stream while the handler goes on (SEP-1699 polling, revision
   * 2025-11-25): the client reconnects with `Last-Event-ID` and receives what was sent meanwhile, and the result.
   * Useful before long waits. False where the stream cannot be resumed (stdio, stateless HTTP, older revisions).
   */
  closeSseStream(retryMs?: number): boolean {
    return this.stream?.closeConnection?.(retryMs) ?? false;
  }

  /**
   * Sends a log message to the client if its level passes the client's: legacy, the level set with
   * `logging/setLevel` (every level until it sets one); modern, the level in this request's `_meta` (none without).
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const threshold = this.logThreshold();
    if (threshold === null || LOGGING_LEVELS.indexOf(level) < LOGGING_LEVELS.indexOf(threshold)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.send('notifications/message', params);
  }

  private send(method: string, params: Record<string, unknown>): void {
    const sink = this.stream ?? this.session.outbound;
    sink?.send({ jsonrpc: '2.0', method, params });
  }
}

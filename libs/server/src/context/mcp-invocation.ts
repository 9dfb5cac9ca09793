import { ClientCapabilities, Era, Implementation, JsonRpcId, LoggingLevel, Meta } from '@conduit-mcp/core';
import type { McpAuthInfo } from '../auth/mcp-auth-info.interface';
import { McpScopePolicy } from '../auth/scope.policy';
import { TransportFacts } from '../dispatch/transport-facts.interface';
import { McpSession } from '../session/mcp-session';
import { MessageSink } from '../session/message-sink.interface';
import { RequestCancellation } from '../session/request-cancellation';
import { McpInput } from './mcp-input.interface';
import { McpRequestState } from './mcp-request-state';

let DEFAULT_SCOPE_POLICY: McpScopePolicy | undefined;

/** The tool, resource, prompt or completion a request addresses, once its method resolved it. */
export interface McpInvocationTarget {
  kind: 'tool' | 'resource' | 'prompt' | 'completion';
  name: string;
}

/** What an era engine knows about a request when it builds its invocation. */
export interface McpInvocationInit {
  server: string;
  method: string;
  requestId: JsonRpcId;
  era: Era;
  protocolVersion: string;
  session: McpSession;
  /** Where messages tied to the request go at first: the POST's stream, stdout; else the session's outbound. */
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
  /**
   * The server's rule for `@McpScopes` (a Nest guard in the app's module reaches it here). Default: scopes as
   * granted, none implied, challenges without metadata (a context built by hand, in a unit test).
   */
  scopes?: McpScopePolicy;
}

/**
 * One running request as a value: its id, cancellation signal, the sink its progress, logs and questions go to, its
 * input, state, caller and target. The era engine builds it; `McpRequestContext` is the handler's view of it. It
 * can outlive the exchange that started it: `repoint` sends what the handler emits from then on somewhere else (a
 * task's store, a resumed stream) without the handler noticing.
 */
export class McpInvocation {
  readonly server: string;
  readonly method: string;
  readonly id: JsonRpcId;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly session: McpSession;
  readonly transport: TransportFacts;
  readonly cancellation: RequestCancellation;
  readonly meta: Meta;
  /** Its questions; a request that becomes a task asks through the task from then on (see `detachInto`). */
  input: McpInput;
  readonly state: McpRequestState;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities;
  readonly logThreshold: () => LoggingLevel | null;
  readonly scopes: McpScopePolicy;
  target: McpInvocationTarget | undefined;
  /** The handler's guards let the request through (set by the handler pipeline). */
  guardsPassed: boolean;
  /**
   * Makes the running request a task, when it may become one (set by the tools' task path for a tool that starts
   * its task itself); resolves once the task exists.
   */
  promote: (() => Promise<void>) | undefined;
  private stream: MessageSink | undefined;

  constructor(init: McpInvocationInit) {
    this.server = init.server;
    this.method = init.method;
    this.id = init.requestId;
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
    this.scopes = init.scopes ?? (DEFAULT_SCOPE_POLICY ??= new McpScopePolicy(null));
    this.target = undefined;
    this.guardsPassed = false;
    this.promote = undefined;
  }

  /** Where the request's messages go now: its own stream while it has one, else the session's outbound channel. */
  get sink(): MessageSink | undefined {
    return this.stream ?? this.session.outbound;
  }

  /** The request's own stream (undefined when its messages go to the session's outbound channel). */
  get ownStream(): MessageSink | undefined {
    return this.stream;
  }

  /** From now on, the request's progress, logs and questions go to `sink` (undefined: the session's outbound). */
  repoint(sink: MessageSink | undefined): void {
    this.stream = sink;
  }

  /**
   * Hands the running request over to a task: its questions go through `input` from now on, and `signal`'s abort
   * (the task cancelled, expired or shut down) aborts the request's own signal, which the handler may hold already.
   */
  detachInto(input: McpInput, signal: AbortSignal): void {
    this.input = input;
    this.promote = undefined;
    if (signal.aborted) return this.cancellation.abort(signal.reason);
    signal.addEventListener('abort', () => this.cancellation.abort(signal.reason), { once: true });
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  get cancelled(): boolean {
    return this.cancellation.aborted;
  }

  /** Who made the request, as the transport's authenticator established it. */
  get auth(): McpAuthInfo | undefined {
    return this.transport.auth;
  }

  /** Sends a notification tied to the request on its current sink. */
  notify(method: string, params: Record<string, unknown>): boolean {
    return this.sink?.send({ jsonrpc: '2.0', method, params }) ?? false;
  }
}

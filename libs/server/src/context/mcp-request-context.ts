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
import type { McpAuthInfo } from '../auth/mcp-auth-info.interface';
import { TransportFacts } from '../dispatch/transport-facts.interface';
import { McpInput } from './mcp-input.interface';
import { McpInvocation, McpInvocationInit, McpInvocationTarget } from './mcp-invocation';
import { McpRequestState } from './mcp-request-state';

/** What an era engine knows about a request when it builds its context (the init of its invocation). */
export type McpRequestContextInit = McpInvocationInit;

/**
 * The context of one MCP request, handed to handlers through `@McpCtx()` and to guards and interceptors: a view over
 * the request's invocation (its ids, era, session, signal and input rounds).
 */
export class McpRequestContext {
  private readonly invocation: McpInvocation;
  private lastProgress = -Infinity;

  constructor(invocation: McpInvocation | McpRequestContextInit) {
    this.invocation = invocation instanceof McpInvocation ? invocation : new McpInvocation(invocation);
  }

  /** Server name (`McpModule.forRoot({ name })`). */
  get server(): string {
    return this.invocation.server;
  }

  /** The JSON-RPC method: `tools/call`, `resources/read`, `prompts/get`, `tools/list`… */
  get method(): string {
    return this.invocation.method;
  }

  get requestId(): JsonRpcId {
    return this.invocation.id;
  }

  get era(): Era {
    return this.invocation.era;
  }

  /** The protocol revision in force for this request. */
  get protocolVersion(): string {
    return this.invocation.protocolVersion;
  }

  /** The request's `params._meta`, as the client sent it. */
  get meta(): Meta {
    return this.invocation.meta;
  }

  /** What the transport knows of the exchange that carried the request: kind, headers, Origin. */
  get transport(): TransportFacts {
    return this.invocation.transport;
  }

  /** Questions to the client: elicitation, sampling, roots. */
  get input(): McpInput {
    return this.invocation.input;
  }

  /**
   * Data kept across the rounds of a modern-era multi round-trip request (sealed into `requestState`); JSON values.
   */
  get state(): McpRequestState {
    return this.invocation.state;
  }

  /** Who the client says it is (legacy: from `initialize`; modern: from this request's `_meta`). */
  get clientInfo(): Implementation | undefined {
    return this.invocation.clientInfo;
  }

  /** What the client can do (legacy: from `initialize`; modern: from this request's `_meta`, never inferred). */
  get clientCapabilities(): ClientCapabilities {
    return this.invocation.clientCapabilities;
  }

  /** The tool, resource or prompt this request addresses, once the dispatcher resolved it. */
  get target(): McpInvocationTarget | undefined {
    return this.invocation.target;
  }

  set target(target: McpInvocationTarget | undefined) {
    this.invocation.target = target;
  }

  /** The HTTP request that carried the message, when the transport is HTTP (Streamable HTTP or HTTP+SSE). */
  get httpRequest(): IncomingMessage | undefined {
    const { kind, raw } = this.transport;
    return kind === 'streamable-http' || kind === 'sse' ? (raw as IncomingMessage | undefined) : undefined;
  }

  /** Who made the request, as the HTTP transport's `McpAuthenticator` established it (`http.authenticator`). */
  get auth(): McpAuthInfo | undefined {
    return this.invocation.auth;
  }

  /** Aborted when the client cancels the request, the session ends, or the server shuts down. */
  get signal(): AbortSignal {
    return this.invocation.signal;
  }

  /** Whether the request was cancelled: `signal.aborted`, without making the signal. */
  get cancelled(): boolean {
    return this.invocation.cancelled;
  }

  /** The session id (legacy era; a stateless or modern request has a throw-away one). */
  get sessionId(): string {
    return this.invocation.session.id;
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
   * Turns this call into a task from here on, for a tool declared with `taskStart: 'handler'` (the tasks extension,
   * modern era): the client gets the created task at once, and the handler goes on detached — its questions through
   * `tasks/update`, `signal` aborted by `tasks/cancel`. Questions asked before it are ordinary input rounds, so a tool
   * can settle what it needs to know first. Resolves at once, doing nothing, when the call cannot become a task (the
   * request did not declare the extension, the legacy era, already a task) or when no task can be made now.
   *
   * @example
   * const answer = await ctx.input.elicit('name', { message: 'Your name?', requestedSchema });
   * await ctx.runAsTask(); // the long part runs as a task
   * return slowWork(answer, ctx.signal);
   */
  runAsTask(): Promise<void> {
    return this.invocation.promote?.() ?? Promise.resolve();
  }

  /**
   * Closes the HTTP connection of this request's SSE stream while the handler goes on (SEP-1699 polling, revision
   * 2025-11-25): the client reconnects with `Last-Event-ID` and receives what was sent meanwhile, and the result.
   * Useful before long waits. False where the stream cannot be resumed (stdio, stateless HTTP, older revisions).
   */
  closeSseStream(retryMs?: number): boolean {
    return this.invocation.ownStream?.closeConnection?.(retryMs) ?? false;
  }

  /**
   * Sends a log message to the client if its level passes the client's: legacy, the level set with
   * `logging/setLevel` (every level until it sets one); modern, the level in this request's `_meta` (none without).
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const threshold = this.invocation.logThreshold();
    if (threshold === null || LOGGING_LEVELS.indexOf(level) < LOGGING_LEVELS.indexOf(threshold)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.send('notifications/message', params);
  }

  private send(method: string, params: Record<string, unknown>): void {
    this.invocation.notify(method, params);
  }
}

/** The invocation a context is a view of: for the server's own code (tasks, transports), not the public view. */
export function invocationOf(ctx: McpRequestContext): McpInvocation {
  return ctx['invocation'];
}

/**
 * Names of the `node:diagnostics_channel` channels the server publishes on (public contract).
 *
 * - `request`: a plain channel carrying one {@link McpRequestEvent} per request answered (or cancelled), and a tracing
 *   channel carrying one {@link McpRequestTrace} per request, from the dispatcher (its `start` stores are entered
 *   around the request's route: a span opened there is the parent of the handler's).
 * - `cancelled`: a plain channel, from the dispatcher.
 * - `task`: a plain channel, one {@link McpTaskEvent} per change of a task's status, from the task runner.
 * - `session`: a plain channel, one {@link McpSessionEvent} when a session becomes live on this instance and one when
 *   it closes here.
 * - `stream`: a plain channel, one {@link McpStreamEvent} when an SSE stream opens and one when it closes.
 * - `tool`, `resource`, `prompt`: each name is both a plain channel carrying one {@link McpHandlerEvent} per handler
 *   run, and a tracing channel (`diagnostics_channel.tracingChannel(name)`, whose sub-channels are
 *   `tracing:<name>:start|end|asyncStart|asyncEnd|error`) carrying one {@link McpHandlerTrace} per run. The two never
 *   clash: a tracing channel's sub-channels have names of their own.
 *
 * @example
 * import { subscribe, tracingChannel } from 'node:diagnostics_channel';
 * subscribe(MCP_CHANNELS.tool, (event) => console.error(event)); // McpHandlerEvent
 * tracingChannel(MCP_CHANNELS.tool).subscribe({ start(trace) {}, asyncEnd(trace) {} }); // McpHandlerTrace
 */
export const MCP_CHANNELS = {
  request: 'conduit-mcp:request',
  tool: 'conduit-mcp:tool',
  resource: 'conduit-mcp:resource',
  prompt: 'conduit-mcp:prompt',
  cancelled: 'conduit-mcp:cancelled',
  task: 'conduit-mcp:task',
  session: 'conduit-mcp:session',
  stream: 'conduit-mcp:stream',
} as const;

/** The handlers that yield an event per run: a tool, a resource (or template), a prompt. Completions yield none. */
export type McpHandlerKind = 'tool' | 'resource' | 'prompt';

/**
 * Outcome of a handler run. `tool_error`: a tool result with `isError: true`; `input_required`: a modern-era round
 * that ended asking the client for input.
 */
export type McpOutcome = 'ok' | 'error' | 'tool_error' | 'cancelled' | 'input_required';

/**
 * Published on `conduit-mcp:task` when a task is created (`working`) and each time its status changes. The task id
 * is not part of it: for an anonymous caller it is the secret that reaches the task.
 */
export interface McpTaskEvent {
  server: string;
  /** The tool the task runs. */
  tool: string;
  era: 'legacy' | 'modern';
  /** `created` once, then `status` for each change (`input_required`, back to `working`, the terminal one). */
  type: 'created' | 'status';
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  /** Why it failed: the JSON-RPC error code (the handler's error, -32603 at shutdown) or `expired`. */
  errorCode?: number;
  expired?: true;
  /** Milliseconds since the task was created, on a terminal status. */
  durationMs?: number;
}

/** Published on `conduit-mcp:request` once per request answered (or cancelled). */
export interface McpRequestEvent {
  server: string;
  /** The JSON-RPC method, sanitized and clamped (a client may send anything). */
  method: string;
  status: 'ok' | 'error' | 'cancelled';
  /** JSON-RPC error code when `status` is `error`. */
  errorCode?: number;
  durationMs: number;
  transport: string;
  era: 'legacy' | 'modern';
}

/**
 * The context object of one request on the tracing channel `conduit-mcp:request`. The same object goes to every
 * sub-channel of the request, in this order: `start` (once the request's era and route are known, with the stores
 * bound by `start.bindStore` entered around the route: the handler's run and everything it does happen inside them),
 * `end` (the synchronous part returned), then once the answer is known `error` (only when the answer is an error or
 * the request was cancelled), `asyncStart`, `asyncEnd` (always last, exactly once per `start`). A request refused
 * before it reaches a route (unknown method, the era's checks, limits) has its `start` and `end` published back to
 * back before its end. Nothing is built unless someone subscribes.
 */
export interface McpRequestTrace {
  server: string;
  /** The JSON-RPC method, sanitized and clamped. */
  method: string;
  /** Whether a route serves `method` in the request's era: false for a method this server does not know. */
  routed: boolean;
  era: 'legacy' | 'modern';
  /** The protocol revision the request is served at, when known (`2025-11-25`, `2026-07-28`, …). */
  protocolVersion?: string;
  /** The transport kind (`stdio`, `streamable-http`, `sse`, `memory`). */
  transport: string;
  /** The JSON-RPC request id, as a string (sanitized, clamped). */
  requestId: string;
  /** The session id, for a request of a session a client holds (legacy era); undefined otherwise. */
  sessionId?: string;
  /**
   * W3C trace context the client sent in `params._meta` (`traceparent`, `tracestate`), kept only when well formed
   * (a `traceparent` of version `00`, a printable `tracestate` of at most 512 characters).
   */
  traceparent?: string;
  tracestate?: string;
  /**
   * What the request ran, for `tools/call`, `prompts/get` and `resources/read`: filled when the handler's run
   * settles (before the request's own end), from its {@link McpHandlerTrace}.
   */
  target?: McpRequestTarget;
  /** Set when the request ends. */
  status?: 'ok' | 'error' | 'cancelled';
  /** JSON-RPC error code when `status` is `error`. */
  errorCode?: number;
  /** Set when the request ends. */
  durationMs?: number;
}

/** The tool, prompt or resource a request ran, and how its handler's run ended. */
export interface McpRequestTarget {
  kind: McpHandlerKind;
  /** As {@link McpHandlerTrace.name}. */
  name: string;
  /** For resources served by a template: the template. */
  template?: string;
  /** True when the server has no such tool, prompt or resource (`name` is what the client asked for). */
  unknown?: true;
  status: McpOutcome;
}

/**
 * Published on `conduit-mcp:session` when a session becomes live on this instance (`opened`: created here, or a
 * copy of a session another instance created, loaded here) and when it closes here (`closed`: ended for good, idle,
 * shut down, or its connection gone).
 */
export interface McpSessionEvent {
  server: string;
  type: 'opened' | 'closed';
  /** How the session was opened: `streamable-http`, `sse` (HTTP+SSE), `stdio` or `memory`. */
  transport: string;
  /** The revision negotiated, once known. */
  protocolVersion?: string;
  /** On `closed`: milliseconds since it was opened here. */
  durationMs?: number;
  /** On `closed`: true when the session ended for good (its record deleted), false when only this copy closed. */
  ended?: boolean;
}

/**
 * Published on `conduit-mcp:stream` when a Server-Sent Events stream opens and when it closes: `reply` (a POST's
 * answer on Streamable HTTP, `subscriptions/listen` included), `get` (a session's standalone GET stream), `resume`
 * (a replay after `Last-Event-ID`), `sse` (an HTTP+SSE session's stream).
 */
export interface McpStreamEvent {
  server: string;
  type: 'opened' | 'closed';
  kind: 'reply' | 'get' | 'resume' | 'sse';
  /** On `closed`: milliseconds it was open. */
  durationMs?: number;
}

/**
 * Published on the plain channels `conduit-mcp:tool`, `conduit-mcp:resource`, `conduit-mcp:prompt` once per
 * `tools/call`, `resources/read`, `prompts/get` handled (each modern-era round counts), when its outcome is known. A
 * call naming no such tool, resource or prompt yields one too, with status `error`.
 */
export interface McpHandlerEvent {
  server: string;
  /** Tool name, prompt name, or the resource URI (sanitized, clamped) as read; the name asked for when unknown. */
  name: string;
  /** For resources served by a template: the template. */
  template?: string;
  /** True when the server has no such tool, prompt or resource (`name` is then what the client asked for). */
  unknown?: true;
  status: McpOutcome;
  /** JSON-RPC error code when `status` is `error`. */
  errorCode?: number;
  durationMs: number;
}

/**
 * The context object of one handler run on the tracing channels `conduit-mcp:tool|resource|prompt`. The same
 * object goes to every sub-channel of the run, in this order: `start` (when the handler's pipeline starts, after its
 * guards: stores bound with `start.bindStore` are entered around the handler, so a span opened there is the
 * handler's parent), `end` (the synchronous part returned), then once the outcome is known `error` (only if the call
 * threw), `asyncStart`, `asyncEnd` (always last, exactly once per `start`). The outcome fields (`status`,
 * `errorCode`, `durationMs`, `result` or `error`) are filled before `error` / `asyncStart`.
 *
 * Published by `McpTelemetryInterceptor`; a call that never reaches its handler (unknown name, invalid tool
 * arguments, a guard's refusal) is published by the server in one go at its end, with the same fields.
 */
export interface McpHandlerTrace {
  server: string;
  kind: McpHandlerKind;
  /** As {@link McpHandlerEvent.name}. */
  name: string;
  /** For resources served by a template: the template. */
  template?: string;
  /** True when the server has no such tool, prompt or resource. */
  unknown?: true;
  era: 'legacy' | 'modern';
  /** The JSON-RPC request id, as a string (sanitized, clamped). */
  requestId: string;
  /** The session id (legacy era; a stateless or modern request has a throw-away one). */
  sessionId: string;
  /** Set when the run ends. */
  status?: McpOutcome;
  /** JSON-RPC error code when `status` is `error`. */
  errorCode?: number;
  /** Set when the run ends. */
  durationMs?: number;
  /** The call's result, when it did not throw (a tool error is a result with `isError: true`). */
  result?: unknown;
  /** What the call threw: the handler's own error when it threw one, else the server's (e.g. a guard's refusal). */
  error?: unknown;
}

/** Published on `conduit-mcp:cancelled` per `notifications/cancelled` received. */
export interface McpCancelledEvent {
  server: string;
  /** The cancelled request's id, sanitized. */
  requestId: string;
  /** The client's reason, sanitized and clamped. */
  reason?: string;
  /** Whether a request with that id was running (and was aborted). */
  found: boolean;
}

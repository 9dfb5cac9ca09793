import type { TraceContextMeta } from '@conduit-mcp/core';
import type { McpClientErrorKind } from '../errors/mcp-client.error';

/**
 * Names of the `node:diagnostics_channel` channels the client publishes on (public contract), beside the server's
 * `MCP_CHANNELS`. Plain channels: `diagnostics_channel.subscribe(name, …)`. Nothing is built unless someone listens.
 *
 * - `request`: one {@link McpClientRequestEvent} per JSON-RPC request the client sent, once it settled (each modern
 *   input round is a request of its own; the era negotiation's `initialize` / `server/discover` count too). Also a
 *   tracing channel (`diagnostics_channel.tracingChannel(name)`) carrying one {@link McpClientRequestTrace} per
 *   request: its `start` runs in the caller's async context before the request is written, and may fill
 *   `traceContext`, which is sent in `params._meta`.
 * - `input`: one {@link McpClientInputEvent} per question of a server the client answered or refused: a legacy
 *   server-to-client request, or one input of a modern `input_required` round. Also a tracing channel carrying one
 *   {@link McpClientInputTrace} per question, whose `start` stores are entered around the answering handler.
 *
 * @example
 * import { subscribe } from 'node:diagnostics_channel';
 * subscribe(MCP_CLIENT_CHANNELS.request, (event) => metrics.observe(event as McpClientRequestEvent));
 */
export const MCP_CLIENT_CHANNELS = {
  request: 'conduit-mcp:client:request',
  input: 'conduit-mcp:client:input',
} as const;

/** Published on `conduit-mcp:client:request` when a request the client sent settled. */
export interface McpClientRequestEvent {
  /** The client's name (`McpClientModule.forRoot({ name })`). */
  client: string;
  /** The server's id (`servers[].id`). */
  server: string;
  method: string;
  era: 'legacy' | 'modern';
  status: 'ok' | 'error';
  /** Why it failed (`McpClientError.kind`) when `status` is `error`. */
  errorKind?: McpClientErrorKind;
  /** The JSON-RPC error code, when the server (or the transport for it) answered with one. */
  errorCode?: number;
  durationMs: number;
}

/** Published on `conduit-mcp:client:input` when a question of the server was answered or refused. */
export interface McpClientInputEvent {
  client: string;
  server: string;
  /** `sampling/createMessage`, `elicitation/create` or `roots/list`. */
  method: string;
  era: 'legacy' | 'modern';
  /**
   * `refused`: an `McpInputRefusal`, a safety check's or the handler's (`errorCode` says how); `error`: anything else
   * the handler or a guard threw; `cancelled`: the server cancelled it, its call ended, or its time ran out.
   */
  status: 'ok' | 'refused' | 'error' | 'cancelled';
  errorCode?: number;
  durationMs: number;
}

/**
 * The context object of one request on the tracing channel `conduit-mcp:client:request`. The same object goes to
 * every sub-channel, in this order: `start` (synchronously in the caller's async context, before the request is
 * written: a subscriber may set `traceContext` there), `end`, then once the request settled `error` (only if it
 * failed), `asyncStart`, `asyncEnd` (always last, exactly once per `start`).
 */
export interface McpClientRequestTrace {
  client: string;
  server: string;
  method: string;
  era: 'legacy' | 'modern';
  /** For `tools/call` and `prompts/get`: the tool's or the prompt's name (clamped). */
  target?: string;
  /** The JSON-RPC request id, as a string. */
  requestId: string;
  /** `stdio`, `streamable-http` or `sse`. */
  transport: string;
  /** The revision the request is sent at, when known. */
  protocolVersion?: string;
  /** The session id the server gave (legacy Streamable HTTP, HTTP+SSE), when there is one. */
  sessionId?: string;
  /**
   * Filled by a `start` subscriber; sent in `params._meta` (`traceparent` and `tracestate`; only a well-formed
   * `traceparent` of version `00` and a printable `tracestate` of at most 512 characters are sent).
   */
  traceContext: TraceContextMeta;
  /** Set when the request settled. */
  status?: 'ok' | 'error';
  errorKind?: McpClientErrorKind;
  errorCode?: number;
  durationMs?: number;
  /** What the request failed with, when it failed. */
  error?: unknown;
}

/**
 * The context object of one question of a server on the tracing channel `conduit-mcp:client:input`: `start` with
 * the stores bound by `start.bindStore` entered around the answering handler (a span opened there is the parent of
 * whatever the handler does), `end`, then `error` (unless answered), `asyncStart`, `asyncEnd`.
 */
export interface McpClientInputTrace {
  client: string;
  server: string;
  method: string;
  era: 'legacy' | 'modern';
  /** The trace context the server sent with its request (legacy server-to-client requests), when well formed. */
  traceContext: TraceContextMeta;
  /** Set when answered or refused. */
  status?: McpClientInputEvent['status'];
  errorCode?: number;
  durationMs?: number;
}

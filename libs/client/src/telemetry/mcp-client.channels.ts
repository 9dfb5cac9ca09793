import type { McpClientErrorKind } from '../errors/mcp-client.error';

/**
 * Names of the `node:diagnostics_channel` channels the client publishes on (public contract), beside the server's
 * `MCP_CHANNELS`. Plain channels: `diagnostics_channel.subscribe(name, …)`. Nothing is built unless someone listens.
 *
 * - `request`: one {@link McpClientRequestEvent} per JSON-RPC request the client sent, once it settled (each modern
 *   input round is a request of its own; the era negotiation's `initialize` / `server/discover` count too).
 * - `input`: one {@link McpClientInputEvent} per question of a server the client answered or refused: a legacy
 *   server-to-client request, or one input of a modern `input_required` round.
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

import { JsonRpcMessage } from '@conduit-mcp/core';

/** Per-message hints a client transport may use (HTTP: headers, per-request cancellation). */
export interface ClientSendOptions {
  /** Aborting it cancels the request at the transport (modern HTTP: closes its response stream). */
  signal?: AbortSignal;
  /** Extra HTTP headers for this message (modern era: `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`). */
  headers?: Record<string, string>;
  /** The request's deadline: paused while the transport authorizes (a person may be signing in). */
  deadline?: PausableDeadline;
}

/** A deadline that stops while something outside the server's control runs (nested pauses count). */
export interface PausableDeadline {
  pause(): void;
  resume(): void;
}

/**
 * A connection to one server, as the client sees it. Messages the server sends (responses, requests,
 * notifications) arrive through `onmessage`, whatever stream carried them.
 */
export interface ClientTransport {
  /** Opens the connection (spawns the child, opens the legacy SSE stream); resolves when messages can be sent. */
  start(): Promise<void>;
  send(message: JsonRpcMessage, options?: ClientSendOptions): Promise<void>;
  /**
   * `info.relatedRequestId`: the id of our request whose response stream carried the message (Streamable HTTP), so
   * a server request can be tied to the call it belongs to.
   */
  onmessage?: (message: unknown, info?: { relatedRequestId?: string | number }) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  close(): Promise<void>;
  /** The server's origin (`https://host:port`) for HTTP transports; undefined for stdio. */
  readonly origin?: string;
  /**
   * The negotiated revision, or undefined to stop sending one: legacy HTTP sends it as `MCP-Protocol-Version`, modern
   * HTTP too; stdio has no headers and leaves it out.
   */
  useRevision?(revision: string | undefined): void;
  /**
   * Legacy Streamable HTTP: opens the session's standalone GET stream, for server messages unrelated to any request;
   * resolves once it is open, or at once when the server has none.
   */
  openStandaloneStream?(): Promise<void>;
  /** Legacy Streamable HTTP: the session id the server issued. */
  readonly sessionId?: string;
  /** Why the connection ended, when the server's side ended it (stdio: the child's exit code and stderr's end). */
  readonly closeReason?: Error;
}

import { JsonRpcMessage } from '@conduit-mcp/core';

/** Somewhere a transport can put outgoing messages: an SSE stream, stdout, a test buffer. */
export interface MessageSink {
  /**
   * Queues one message; never throws. Returns false when the sink is closed and the message was not taken. `json` is
   * the message as `serializeMessage` writes it, when the caller has it (a broadcast serializes once for every sink).
   */
  send(message: JsonRpcMessage, json?: string): boolean;
  readonly closed: boolean;
  /**
   * SEP-1699: closes the underlying connection while keeping the stream resumable (the client reconnects with
   * `Last-Event-ID` and gets the rest). Absent or false where the stream cannot be resumed.
   */
  closeConnection?(retryMs?: number): boolean;
}

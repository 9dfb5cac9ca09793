import { JsonRpcMessage, JsonRpcResponse } from '@conduit-mcp/core';
import { MessageSink } from '../../session/message-sink.interface';

/** The SSE stream a POST reply switches to. */
export interface ReplyStream {
  send(message: JsonRpcMessage): boolean;
  /** Ends the stream after its last message. */
  finish(): void;
  /** SEP-1699: closes the connection without ending a resumable stream. */
  closeConnection?(retryMs?: number): boolean;
}

/**
 * A stream whose connection the server may close before the request is answered (SEP-1699 polling); the client
 * reconnects with `GET` + `Last-Event-ID` and gets the rest. Offered as `origin.stream` of stateful Streamable HTTP
 * requests.
 */
export interface PollableStream extends MessageSink {
  closeConnection(retryMs?: number): boolean;
}

/**
 * The reply to one POST: plain JSON while the dispatcher only answers; once it streams a message related to the
 * request (progress, a log, a server-to-client request), an SSE stream that carries those messages, then the
 * responses as they come, then ends.
 */
export class PostReply implements PollableStream {
  private stream: ReplyStream | undefined;
  private readonly early: JsonRpcResponse[] = [];
  private done = false;

  constructor(
    private readonly openStream: () => ReplyStream,
    private readonly resumable: boolean,
  ) {}

  get closed(): boolean {
    return this.done;
  }

  /** A message tied to the request: switches the reply to SSE. */
  send(message: JsonRpcMessage): boolean {
    if (this.done) return false;
    return this.open().send(message);
  }

  /** A response: sent at once on SSE, or kept in case the reply switches to SSE later. */
  answer(response: JsonRpcResponse): void {
    if (this.done) return;
    if (this.stream) this.stream.send(response);
    else this.early.push(response);
  }

  closeConnection(retryMs?: number): boolean {
    if (this.done || !this.resumable) return false;
    return this.open().closeConnection?.(retryMs) ?? false;
  }

  /** Ends the reply. True when it went out as SSE (now finished); false when the responses remain to send as JSON. */
  finish(): boolean {
    this.done = true;
    this.stream?.finish();
    return this.stream !== undefined;
  }

  private open(): ReplyStream {
    if (!this.stream) {
      this.stream = this.openStream();
      for (const response of this.early.splice(0)) this.stream.send(response);
    }
    return this.stream;
  }
}

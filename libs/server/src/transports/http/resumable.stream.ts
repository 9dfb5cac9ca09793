import { JsonRpcMessage, serializeMessage } from '@conduit-mcp/core';
import { MessageSink } from '../../session/message-sink.interface';
import { EventStore } from './event.store';
import { SseStream } from './sse.stream';

/** Reconnection delay sent in priming events and before the server closes a connection early (`retry:`). */
export const SSE_RETRY_MS = 1_000;

/**
 * An SSE stream of a stateful Streamable HTTP session that outlives its connections: every message is recorded in
 * the event store before it is written, under an event id, so a client that lost the connection resumes with
 * `GET` + `Last-Event-ID` and gets the rest. At most one connection at a time; attaching another replaces it.
 */
export class ResumableStream implements MessageSink {
  private connection: SseStream | undefined;
  private stopped = false;
  // Writes waiting for an event id from an asynchronous store, in order; undefined while none waits.
  private pending: Promise<void> | undefined;

  constructor(
    private readonly store: EventStore,
    readonly sessionId: string,
    readonly streamId: string,
  ) {}

  /** True once the stream ended or stopped taking messages. */
  get closed(): boolean {
    return this.stopped;
  }

  /** Makes `connection` the one events are written to, ending the previous connection. */
  attach(connection: SseStream): void {
    const previous = this.connection;
    this.connection = connection;
    if (previous && previous !== connection) previous.end();
    connection.onClose(() => {
      if (this.connection === connection) this.connection = undefined;
    });
    if (this.stopped) connection.end();
  }

  /**
   * Writes a priming event, an event id with empty data, so the client can resume from the start (SEP-1699), with
   * the reconnection delay.
   */
  prime(retryMs = SSE_RETRY_MS): void {
    if (this.stopped) return;
    this.recorded(this.store.append(this.sessionId, this.streamId), (id) =>
      this.connection?.writeEvent(id === undefined ? { retry: retryMs, data: '' } : { id, retry: retryMs, data: '' }),
    );
  }

  /**
   * Records a message, then writes it if a connection is attached. False once the stream is closed, or for a
   * message that cannot be serialized (nothing recorded, nothing sent).
   */
  send(message: JsonRpcMessage, json?: string): boolean {
    if (this.stopped) return false;
    // Serialized once, for the store (which keeps and measures it) and for the connection.
    let data: string;
    try {
      data = json ?? serializeMessage(message);
    } catch {
      return false;
    }
    this.recorded(this.store.append(this.sessionId, this.streamId, message, data), (id) =>
      this.connection?.send(message, data, id),
    );
    return true;
  }

  /**
   * Writes once the store gave the event its id: at once for a synchronous store with nothing pending, else after
   * every earlier write, so a stream's events go out in order. A store that fails leaves the event unrecorded, but
   * it is still sent (without an id: not resumable, never lost).
   */
  private recorded(id: string | Promise<string>, write: (id: string | undefined) => void): void {
    if (typeof id === 'string' && this.pending === undefined) return write(id);
    const next = (this.pending ?? Promise.resolve()).then(() => id).then(write, () => write(undefined));
    this.pending = next;
    void next.then(() => {
      if (this.pending === next) this.pending = undefined;
    });
  }

  // Runs `step` after the writes still waiting for their ids.
  private afterPending(step: () => void): void {
    if (this.pending === undefined) step();
    else void this.pending.then(step);
  }

  /**
   * Ends the stream for good: nothing more is recorded, the connection ends, a resumption gets no more. When the
   * connection attached at the end took every event and flushed them to the client's socket, nothing is left to
   * resume: the store is told to forget the stream's events (`EventStore.forget`), rather than hold them until they
   * expire.
   */
  finish(): void {
    if (this.stopped) return;
    this.stopped = true;
    const ended = Promise.resolve(this.store.end(this.sessionId, this.streamId)).catch(() => undefined);
    this.afterPending(() => {
      const connection = this.connection;
      if (!connection) return;
      if (!this.store.forget) return connection.end();
      connection.end(() => {
        void ended.then(() => this.store.forget!(this.sessionId, this.streamId)).catch(() => undefined);
      });
    });
  }

  /**
   * Stops taking messages and ends the connection, but leaves the recorded events resumable (a standalone stream
   * whose connection went away: a later `GET` with `Last-Event-ID` continues it).
   */
  detach(): void {
    this.stopped = true;
    this.afterPending(() => this.connection?.end());
  }

  /**
   * Closes the connection without ending the stream (SEP-1699 polling): sends a priming event carrying `retryMs`,
   * then ends the response; the client reconnects with `Last-Event-ID` and gets the rest. False when no
   * connection is attached.
   */
  closeConnection(retryMs = SSE_RETRY_MS): boolean {
    const connection = this.connection;
    if (!connection || this.stopped) return false;
    this.prime(retryMs);
    this.afterPending(() => connection.end());
    return true;
  }
}

import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import {
  JsonRpcMessage,
  SseOutgoingEvent,
  encodeSseComment,
  encodeSseEvent,
  serializeMessage,
} from '@conduit-mcp/core';
import { MessageSink } from '../../session/message-sink.interface';
import { McpStreamEvent } from '../../telemetry/mcp.channels';
import { openedStream } from '../../telemetry/lifecycle-events';

/** Options of {@link SseStream}. */
export interface SseStreamOptions {
  /** Interval of `: ping` comments while nothing else is written; 0 sends none. */
  keepAliveMs: number;
  /** Extra response headers (`Mcp-Session-Id`). */
  headers?: OutgoingHttpHeaders;
  /** Called on each keep-alive comment, e.g. to keep the session from being evicted as idle. */
  onKeepAlive?: () => void;
  /**
   * Bytes the response may hold unsent (written, not yet taken by the client); a write finding more than this still
   * waiting closes the connection instead. Default {@link DEFAULT_SSE_BUFFER_BYTES}.
   */
  maxBufferedBytes?: number;
  /** Reported on `conduit-mcp:stream` as a stream of this server, of this kind, when it opens and closes. */
  reportAs?: { server: string; kind: McpStreamEvent['kind'] };
}

/** Default bound of the bytes an SSE response holds for a client that does not read (`http.maxSseBufferBytes`). */
export const DEFAULT_SSE_BUFFER_BYTES = 8 * 1024 * 1024;

const SSE_HEADERS: OutgoingHttpHeaders = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};

/**
 * One HTTP response used as a Server-Sent Events connection: writes the SSE head at once, then events and
 * keep-alive comments. Never throws; every write after the connection closed is dropped and reported as false.
 */
export class SseStream implements MessageSink {
  private ended = false;
  private lastWrite = Date.now();
  private readonly maxBufferedBytes: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly closeListeners = new Set<() => void>();
  private readonly reportClosed: (() => void) | undefined;

  constructor(
    private readonly res: ServerResponse,
    options: SseStreamOptions,
  ) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_SSE_BUFFER_BYTES;
    res.on('close', () => this.markClosed());
    res.on('error', () => this.markClosed());
    if (options.reportAs) this.reportClosed = openedStream(options.reportAs.server, options.reportAs.kind);
    try {
      res.writeHead(200, { ...SSE_HEADERS, ...options.headers });
      res.flushHeaders();
    } catch {
      this.end();
    }
    if (options.keepAliveMs > 0 && !this.ended) {
      this.timer = setInterval(() => {
        if (Date.now() - this.lastWrite < options.keepAliveMs) return;
        if (this.write(encodeSseComment('ping'))) options.onKeepAlive?.();
      }, options.keepAliveMs);
      this.timer.unref();
    }
  }

  get closed(): boolean {
    return this.ended || this.res.destroyed || this.res.writableEnded;
  }

  /**
   * Writes a message as an SSE `message` event, with an event id when given; `json` is the message already
   * serialized, when the caller has it.
   */
  send(message: JsonRpcMessage, json?: string, id?: string): boolean {
    let data: string;
    try {
      data = json ?? serializeMessage(message);
    } catch {
      return false;
    }
    return this.writeEvent({ id, event: 'message', data });
  }

  writeEvent(event: SseOutgoingEvent): boolean {
    let chunk: string;
    try {
      chunk = encodeSseEvent(event);
    } catch {
      return false;
    }
    return this.write(chunk);
  }

  /**
   * Ends the response (the stream, or only this connection of a resumable stream). `onFlushed` runs once everything
   * written was handed to the client's socket; not when the connection failed first.
   */
  end(onFlushed?: () => void): void {
    if (this.ended) return;
    const open = !this.closed;
    this.markClosed();
    try {
      if (!this.res.writableEnded) {
        if (open && onFlushed) this.res.once('finish', onFlushed);
        this.res.end();
      }
    } catch {
      this.res.destroy();
    }
  }

  /** Runs `listener` once when the connection closes, whichever side closed it. Returns an unsubscribe. */
  onClose(listener: () => void): () => void {
    if (this.ended) {
      listener();
      return () => undefined;
    }
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  private write(chunk: string): boolean {
    if (this.closed) return false;
    // Checked before writing: a client still holding more than the bound unread is cut off (a stateful session's
    // stream resumes from the event store with Last-Event-ID), while one that reads may get an event of any size.
    if (this.res.writableLength > this.maxBufferedBytes) {
      this.res.destroy();
      return false;
    }
    try {
      this.res.write(chunk);
    } catch {
      this.res.destroy();
      return false;
    }
    this.lastWrite = Date.now();
    return true;
  }

  private markClosed(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.timer) clearInterval(this.timer);
    this.reportClosed?.();
    const listeners = [...this.closeListeners];
    this.closeListeners.clear();
    for (const listener of listeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not break the transport.
      }
    }
  }
}

import { createParser, EventSourceParser, ParseError } from 'eventsource-parser';
import { SseEvent } from './sse.encoder';

/** Options of an {@link SseParser}. */
export interface SseParserOptions {
  /** Most characters buffered for one unfinished line or event. Default 10 MiB. */
  maxBufferSize?: number;
}

/**
 * Incremental server-sent events parser (over `eventsource-parser`). Feed it text or bytes in
 * any chunking; each call returns the events it completed. An event's `id` is its own `id:`
 * field: unlike a browser EventSource it is not carried over, so track Last-Event-ID yourself.
 * The latest `retry:` value is kept in {@link SseParser.retry}. Unknown fields and bad retry
 * values are ignored, as the SSE standard says; exceeding `maxBufferSize` makes `feed` throw.
 */
export class SseParser {
  private readonly parser: EventSourceParser;
  private readonly decoder = new TextDecoder();
  private completed: SseEvent[] = [];
  private fatal?: ParseError;
  private lastRetry?: number;

  constructor({ maxBufferSize = 10 * 1024 * 1024 }: SseParserOptions = {}) {
    this.parser = createParser({
      maxBufferSize,
      onEvent: ({ id, event, data }) =>
        this.completed.push({ ...(id !== undefined && { id }), ...(event !== undefined && { event }), data }),
      onRetry: (retry) => (this.lastRetry = retry),
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.fatal = error;
      },
    });
  }

  /** The reconnection delay (ms) the server asked for last, if any. */
  get retry(): number | undefined {
    return this.lastRetry;
  }

  /** Parses a chunk; bytes may split UTF-8 characters across calls. */
  feed(chunk: string | Uint8Array): SseEvent[] {
    if (this.fatal) throw this.fatal;
    this.parser.feed(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
    if (this.fatal) throw this.fatal;
    const events = this.completed;
    this.completed = [];
    return events;
  }
}

import { JsonRpcMessage } from '@conduit-mcp/core';

/** One recorded SSE event. */
export interface StoredEvent {
  id: string;
  message: JsonRpcMessage;
}

/** What a `Last-Event-ID` resumes: the stream it belongs to and the events recorded after it. */
export interface EventReplay {
  streamId: string;
  events: StoredEvent[];
  /** The stream got its last event (the final response); nothing more will be appended. */
  ended: boolean;
}

/**
 * The record of the SSE streams of Streamable HTTP sessions, so that a client that lost a connection can resume
 * the stream with `GET` + `Last-Event-ID`. Every event id is unique within its session and names its stream;
 * lookups are scoped to a session, so an id never reveals another session's events. Each method may answer at once
 * (the in-memory default, on the hot path) or with a promise (a shared store): the transport keeps the order of a
 * stream's events either way. Inject it with the token of the same name; choose it with
 * `McpModule.forRoot({ eventStore })`.
 */
export interface EventStore {
  /** Records a message on a stream and returns its event id; without a message, records a priming mark only. */
  append(sessionId: string, streamId: string, message?: JsonRpcMessage): string | Promise<string>;
  /** Marks a stream as ended: its final event was recorded. */
  end(sessionId: string, streamId: string): void | Promise<void>;
  /** The events of the stream `lastEventId` belongs to that were recorded after it; undefined when unknown. */
  replayAfter(sessionId: string, lastEventId: string): EventReplay | undefined | Promise<EventReplay | undefined>;
  /** Forgets every stream of a session (the session ended). */
  deleteSession(sessionId: string): void | Promise<void>;
}

/** The injection token of the {@link EventStore} (interface and token under one name). */
export const EventStore = Symbol('EventStore');

/** Bounds of {@link InMemoryEventStore}. */
export interface InMemoryEventStoreOptions {
  /** Events kept per stream; the oldest are dropped past it. Default 1 000. */
  maxEventsPerStream?: number;
  /** Streams kept; the least recently written is dropped past it. Default 10 000. */
  maxStreams?: number;
  /** Events kept across all streams; least recently written streams are dropped past it. Default 100 000. */
  maxEvents?: number;
  /** A stream not written for this long is dropped. Default 5 minutes. */
  ttlMs?: number;
}

interface StreamRecord {
  sessionId: string;
  events: Array<{ seq: number; message: JsonRpcMessage | undefined }>;
  ended: boolean;
  touched: number;
}

const MAX_EVENT_ID_LENGTH = 200;

/**
 * Bounded in-memory {@link EventStore} for one process: at most `maxEventsPerStream` events per stream (oldest
 * dropped), `maxStreams` streams and `maxEvents` events in all (least recently written streams dropped), and
 * streams unwritten for `ttlMs` expire. Event ids are `<streamId>:<sequence>`, the sequence counting across the
 * store so ids stay unique even for a stream dropped and written again. No timers: expiry runs on writes.
 */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, StreamRecord>();
  private readonly bySession = new Map<string, Set<string>>();
  private readonly maxEventsPerStream: number;
  private readonly maxStreams: number;
  private readonly maxEvents: number;
  private readonly ttlMs: number;
  private totalEvents = 0;
  private sequence = 0;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEventsPerStream = options.maxEventsPerStream ?? 1_000;
    this.maxStreams = options.maxStreams ?? 10_000;
    this.maxEvents = options.maxEvents ?? 100_000;
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
  }

  /** Streams held right now. */
  get size(): number {
    return this.streams.size;
  }

  append(sessionId: string, streamId: string, message?: JsonRpcMessage): string {
    const now = Date.now();
    this.expire(now);
    let record = this.streams.get(streamId);
    if (record?.sessionId === sessionId) this.streams.delete(streamId);
    else {
      if (record) this.drop(streamId);
      record = { sessionId, events: [], ended: false, touched: now };
      let ids = this.bySession.get(sessionId);
      if (!ids) this.bySession.set(sessionId, (ids = new Set()));
      ids.add(streamId);
    }
    // Re-inserting keeps the map ordered from least to most recently written.
    this.streams.set(streamId, record);
    record.touched = now;
    const seq = ++this.sequence;
    record.events.push({ seq, message });
    this.totalEvents++;
    if (record.events.length > this.maxEventsPerStream) {
      record.events.shift();
      this.totalEvents--;
    }
    while (this.streams.size > this.maxStreams || this.totalEvents > this.maxEvents) {
      const oldest = this.streams.keys().next().value as string;
      if (oldest === streamId) break;
      this.drop(oldest);
    }
    return `${streamId}:${seq}`;
  }

  end(sessionId: string, streamId: string): void {
    const record = this.streams.get(streamId);
    if (record?.sessionId === sessionId) record.ended = true;
  }

  replayAfter(sessionId: string, lastEventId: string): EventReplay | undefined {
    if (lastEventId.length > MAX_EVENT_ID_LENGTH) return undefined;
    const separator = lastEventId.lastIndexOf(':');
    const streamId = lastEventId.slice(0, separator);
    const seqText = lastEventId.slice(separator + 1);
    if (separator <= 0 || !/^\d{1,15}$/.test(seqText)) return undefined;
    const record = this.streams.get(streamId);
    if (!record || record.sessionId !== sessionId || Date.now() - record.touched > this.ttlMs) return undefined;
    const after = Number(seqText);
    const events: StoredEvent[] = [];
    for (const event of record.events) {
      if (event.seq > after && event.message) events.push({ id: `${streamId}:${event.seq}`, message: event.message });
    }
    return { streamId, events, ended: record.ended };
  }

  deleteSession(sessionId: string): void {
    for (const streamId of this.bySession.get(sessionId) ?? []) this.drop(streamId);
    this.bySession.delete(sessionId);
  }

  private expire(now: number): void {
    for (const [streamId, record] of this.streams) {
      if (now - record.touched <= this.ttlMs) break;
      this.drop(streamId);
    }
  }

  private drop(streamId: string): void {
    const record = this.streams.get(streamId);
    if (!record) return;
    this.streams.delete(streamId);
    this.totalEvents -= record.events.length;
    const ids = this.bySession.get(record.sessionId);
    ids?.delete(streamId);
    if (ids?.size === 0) this.bySession.delete(record.sessionId);
  }
}

import { JsonRpcMessage, serializeMessage } from '@conduit-mcp/core';
import type { McpStateHealth } from '../../health/state-health.interface';

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
  /**
   * Records a message on a stream and returns its event id; without a message, records a priming mark only. `json`
   * is the message as `serializeMessage` writes it, when the caller has it already (a store keeps or measures it
   * rather than serializing again). Byte budgets count that JSON's length.
   */
  append(sessionId: string, streamId: string, message?: JsonRpcMessage, json?: string): string | Promise<string>;
  /** Marks a stream as ended: its final event was recorded. */
  end(sessionId: string, streamId: string): void | Promise<void>;
  /**
   * The events of the stream `lastEventId` belongs to that were recorded after it; undefined when unknown. An id some
   * of whose successors were dropped (a bound was reached) is unknown too: a replay never skips events.
   */
  replayAfter(sessionId: string, lastEventId: string): EventReplay | undefined | Promise<EventReplay | undefined>;
  /** Forgets every stream of a session (the session was ended for good, on any instance). */
  deleteSession(sessionId: string): void | Promise<void>;
  /**
   * Optional: forgets the events of one ended stream, whose every event reached the client's socket on the connection
   * that carried its end (nothing is left to resume). Resuming after its last event still finds it ended; resuming
   * from an earlier one finds nothing. A store without it keeps such streams until they expire.
   */
  forget?(sessionId: string, streamId: string): void | Promise<void>;
  /**
   * Optional: whether the store can serve now (a shared store: its connection). `McpHealthIndicator` reports it and
   * is down while it is down; an answer slower than 2 s counts as down. Never rejects.
   */
  health?(): Promise<McpStateHealth>;
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
  /**
   * Bytes of event data kept per stream (each message's JSON length); the oldest events are dropped past it, and an
   * event larger than it is sent but not kept. Default 8 MiB.
   */
  maxBytesPerStream?: number;
  /** Bytes of event data kept per session; its least recently written streams are dropped past it. Default 16 MiB. */
  maxBytesPerSession?: number;
  /** Bytes of event data kept in all; the least recently written streams are dropped past it. Default 64 MiB. */
  maxBytes?: number;
  /** A stream not written for this long is dropped. Default 5 minutes. */
  ttlMs?: number;
}

interface StreamRecord {
  sessionId: string;
  events: Array<{ seq: number; json: string | undefined }>;
  bytes: number;
  // Events up to this sequence number are no longer held: a cursor before it cannot be resumed without a gap.
  floor: number;
  ended: boolean;
  touched: number;
}

interface SessionStreams {
  // Least recently written first.
  streamIds: Set<string>;
  bytes: number;
}

const MAX_EVENT_ID_LENGTH = 200;
const MiB = 1024 * 1024;

/**
 * Bounded in-memory {@link EventStore} for one process. It holds each message's JSON (a snapshot, whatever the
 * handler does with its objects afterwards) and counts its length against byte budgets per stream (oldest events
 * dropped), per session and in all (least recently written streams dropped), besides the counts of events and
 * streams; streams unwritten for `ttlMs` expire. Event ids are `<streamId>:<sequence>`, the sequence counting across
 * the store so ids stay unique even for a stream dropped and written again. A `Last-Event-ID` older than what a
 * stream still holds is unknown, as the {@link EventStore} contract asks. No timers: a read finds an expired stream
 * gone, and writes drop expired streams (at most every second).
 */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, StreamRecord>();
  private readonly bySession = new Map<string, SessionStreams>();
  private readonly maxEventsPerStream: number;
  private readonly maxStreams: number;
  private readonly maxEvents: number;
  private readonly maxBytesPerStream: number;
  private readonly maxBytesPerSession: number;
  private readonly maxBytes: number;
  private readonly ttlMs: number;
  private totalEvents = 0;
  private totalBytes = 0;
  private sequence = 0;
  // When writes next look for expired streams. Not on every write: a stream rewritten moves to the end of the map,
  // and walking from its start skips the slots of every entry moved since the map last compacted them.
  private nextExpiry = 0;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEventsPerStream = options.maxEventsPerStream ?? 1_000;
    this.maxStreams = options.maxStreams ?? 10_000;
    this.maxEvents = options.maxEvents ?? 100_000;
    this.maxBytes = options.maxBytes ?? 64 * MiB;
    this.maxBytesPerSession = Math.min(options.maxBytesPerSession ?? 16 * MiB, this.maxBytes);
    // A stream never outgrows its session's budget or the store's, so trimming it alone always makes it fit.
    this.maxBytesPerStream = Math.min(options.maxBytesPerStream ?? 8 * MiB, this.maxBytesPerSession);
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
  }

  /** Streams held right now. */
  get size(): number {
    return this.streams.size;
  }

  /** Bytes of event data held right now (the JSON length of the messages kept). */
  get bytes(): number {
    return this.totalBytes;
  }

  append(sessionId: string, streamId: string, message?: JsonRpcMessage, json?: string): string {
    const data = message === undefined ? undefined : (json ?? serializeMessage(message));
    const now = Date.now();
    if (now >= this.nextExpiry) this.expire(now);
    const seq = ++this.sequence;
    let record = this.streams.get(streamId);
    if (record?.sessionId === sessionId && now - record.touched <= this.ttlMs) this.streams.delete(streamId);
    else {
      if (record) this.drop(streamId);
      // A stream (re)started here holds nothing older: a cursor from before, if any, is unknown.
      record = { sessionId, events: [], bytes: 0, floor: seq - 1, ended: false, touched: now };
    }
    // Re-inserting keeps the map, and the session's set, ordered from least to most recently written.
    this.streams.set(streamId, record);
    record.touched = now;
    const session = this.sessionOf(sessionId);
    session.streamIds.delete(streamId);
    session.streamIds.add(streamId);

    const size = data?.length ?? 0;
    if (size > this.maxBytesPerStream) {
      // Sent but not kept; whatever came before it can no longer be replayed without it.
      while (record.events.length > 0) this.dropOldestEvent(record, session);
      record.floor = seq;
    } else {
      record.events.push({ seq, json: data });
      record.bytes += size;
      session.bytes += size;
      this.totalBytes += size;
      this.totalEvents++;
      while (record.events.length > this.maxEventsPerStream || record.bytes > this.maxBytesPerStream)
        this.dropOldestEvent(record, session);
    }
    while (session.bytes > this.maxBytesPerSession) {
      const oldest = session.streamIds.values().next().value as string;
      if (oldest === streamId) break;
      this.drop(oldest);
    }
    while (
      this.streams.size > this.maxStreams ||
      this.totalEvents > this.maxEvents ||
      this.totalBytes > this.maxBytes
    ) {
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
    if (!record || record.sessionId !== sessionId) return undefined;
    if (Date.now() - record.touched > this.ttlMs) {
      this.drop(streamId);
      return undefined;
    }
    const after = Number(seqText);
    if (after < record.floor) return undefined;
    const events: StoredEvent[] = [];
    for (const event of record.events) {
      if (event.seq > after && event.json !== undefined)
        events.push({ id: `${streamId}:${event.seq}`, message: JSON.parse(event.json) as JsonRpcMessage });
    }
    return { streamId, events, ended: record.ended };
  }

  // Keeps the stream's end, and its last id as the floor: resuming after the last event still answers "ended,
  // nothing more" (204), resuming from before it is unknown, as for events dropped by a bound.
  forget(sessionId: string, streamId: string): void {
    const record = this.streams.get(streamId);
    if (record?.sessionId !== sessionId) return;
    const session = this.bySession.get(sessionId);
    const last = record.events.at(-1)?.seq ?? record.floor;
    for (const event of record.events) {
      const size = event.json?.length ?? 0;
      this.totalBytes -= size;
      if (session) session.bytes -= size;
    }
    this.totalEvents -= record.events.length;
    record.events = [];
    record.bytes = 0;
    record.floor = last;
  }

  deleteSession(sessionId: string): void {
    for (const streamId of this.bySession.get(sessionId)?.streamIds ?? []) this.drop(streamId);
    this.bySession.delete(sessionId);
  }

  private sessionOf(sessionId: string): SessionStreams {
    let session = this.bySession.get(sessionId);
    if (!session) this.bySession.set(sessionId, (session = { streamIds: new Set(), bytes: 0 }));
    return session;
  }

  private dropOldestEvent(record: StreamRecord, session: SessionStreams): void {
    const event = record.events.shift()!;
    const size = event.json?.length ?? 0;
    record.bytes -= size;
    session.bytes -= size;
    this.totalBytes -= size;
    this.totalEvents--;
    record.floor = event.seq;
  }

  private expire(now: number): void {
    this.nextExpiry = now + Math.min(1_000, Math.max(1, Math.floor(this.ttlMs / 8)));
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
    this.totalBytes -= record.bytes;
    const session = this.bySession.get(record.sessionId);
    if (!session) return;
    session.bytes -= record.bytes;
    session.streamIds.delete(streamId);
    if (session.streamIds.size === 0) this.bySession.delete(record.sessionId);
  }
}

import { JsonRpcMessage, serializeMessage } from '@conduit-mcp/core';
import { EventReplay, EventStore, StoredEvent } from '@conduit-mcp/server';
import type { Redis } from 'ioredis';
import { RedisHealth, pingHealth } from '../connection/redis.health';
import { EventStoreKeys, checkId, isEntryId, keySegment, parseEventId } from './redis-event-store.keys';
import {
  RedisEventStoreOptions,
  ResolvedEventStoreOptions,
  resolveEventStoreOptions,
} from './redis-event-store.options';
import { EventStoreCommands, ReadReply, eventStoreCommands } from './redis-event-store.scripts';

export type { RedisEventStoreOptions } from './redis-event-store.options';

// Expired streams whose index entries one write corrects, at most.
const PURGE_PER_WRITE = 32;
// Streams one round of deleteSession drops.
const DELETE_BATCH = 500;
// Entries one read of follow() returns.
const FOLLOW_BATCH = 100;
const DEFAULT_FOLLOW_BLOCK_MS = 5_000;
const MAX_FOLLOW_BLOCK_MS = 60_000;

/** What the store holds right now, as its counters say (streams expired but not yet purged included). */
export interface RedisEventStoreStats {
  streams: number;
  bytes: number;
}

/**
 * An {@link EventStore} on Redis, shared by every instance of a server, so that a client resumes a stream
 * (`GET` + `Last-Event-ID`) on whichever instance it reaches. Each MCP stream is a Redis stream
 * (`<prefix>events:<session>:<stream>`), its SSE event ids `<streamId>:<entryId>`. Every write is one script:
 * append, then trim exactly to the stream's bounds (oldest first, the last dropped id kept as the stream's floor, so
 * a replay never skips an event), then drop least recently written whole streams past the session's and the store's
 * byte budgets and the stream count. Streams unwritten for `ttlMs` expire in Redis; the counters they leave are
 * corrected on later writes. Every method answers with a promise, and rejects when Redis fails. All instances on one
 * prefix must use the same options. Standalone Redis only (scripts name keys of other streams).
 *
 * @example
 * const store = new RedisEventStore(redis, { prefix: 'mcp:' });
 * McpModule.forRoot({ eventStore: store });
 */
export class RedisEventStore implements EventStore {
  private readonly options: ResolvedEventStoreOptions;
  private readonly keys: EventStoreKeys;
  private readonly commands: EventStoreCommands;

  constructor(
    private readonly redis: Redis,
    options: RedisEventStoreOptions,
  ) {
    if (typeof redis?.defineCommand !== 'function') throw new Error('RedisEventStore: redis must be an ioredis client');
    // ioredis would prefix the keys a script is given but not those it builds: the two would disagree.
    if (redis.options.keyPrefix)
      throw new Error("RedisEventStore: the client's keyPrefix option is not supported; use the prefix option");
    this.options = resolveEventStoreOptions(options);
    this.keys = new EventStoreKeys(`${this.options.prefix}events:`);
    this.commands = eventStoreCommands(redis);
  }

  async append(sessionId: string, streamId: string, message?: JsonRpcMessage, json?: string): Promise<string> {
    const session = keySegment(checkId('sessionId', sessionId));
    const stream = keySegment(checkId('streamId', streamId));
    let kind = 'p';
    let data = '';
    if (message !== undefined) {
      data = json ?? serializeMessage(message);
      if (typeof data !== 'string') throw new Error('RedisEventStore: json must be a string');
      // Too large to keep: only its id is recorded, and the JSON never travels to Redis.
      kind = Buffer.byteLength(data, 'utf8') > this.options.maxBytesPerStream ? 'big' : 'm';
      if (kind === 'big') data = '';
    }
    const { maxEventsPerStream, maxBytesPerStream, maxBytesPerSession, maxBytes, maxStreams, ttlMs } = this.options;
    const entryId = await this.commands.conduitEventStoreAppend(
      this.keys.stream(session, stream),
      this.keys.meta(session, stream),
      this.keys.session(session),
      this.keys.index,
      this.keys.bytes,
      this.keys.base,
      session,
      stream,
      kind,
      data,
      maxEventsPerStream,
      maxBytesPerStream,
      maxBytesPerSession,
      maxBytes,
      maxStreams,
      ttlMs,
      PURGE_PER_WRITE,
    );
    return `${streamId}:${entryId}`;
  }

  async end(sessionId: string, streamId: string): Promise<void> {
    const session = keySegment(checkId('sessionId', sessionId));
    await this.commands.conduitEventStoreEnd(this.keys.meta(session, keySegment(checkId('streamId', streamId))));
  }

  async replayAfter(sessionId: string, lastEventId: string): Promise<EventReplay | undefined> {
    const session = keySegment(checkId('sessionId', sessionId));
    const cursor = parseEventId(lastEventId);
    if (!cursor) return undefined;
    const { streamId, entryId } = cursor;
    // Strict: a stream holding more than its bounds (an instance with other options wrote it) is unknown rather
    // than replayed in part, which would leave a gap before the live events.
    const reply = await this.read(session, streamId, entryId, this.options.maxEventsPerStream, true);
    if (!reply) return undefined;
    return { streamId, events: this.events(streamId, reply), ended: reply[0] === 'ended' };
  }

  async deleteSession(sessionId: string): Promise<void> {
    const session = keySegment(checkId('sessionId', sessionId));
    const rounds = Math.ceil(this.options.maxStreams / DELETE_BATCH) + 1;
    for (let round = 0; round < rounds; round++) {
      const left = await this.commands.conduitEventStoreDeleteSession(
        this.keys.session(session),
        this.keys.base,
        session,
        DELETE_BATCH,
      );
      if (left === 0) return;
    }
    throw new Error(`RedisEventStore: session ${sessionId} still had streams after ${rounds} rounds of deletion`);
  }

  /**
   * Follows a stream live: yields the events recorded after `afterEntryId` (a Redis entry id, the part of an event
   * id after its last colon), then each one appended later, by any instance, until the stream ended (the generator
   * returns) or `signal` aborts (it returns too). Rejects when the stream is unknown, or was dropped or trimmed past
   * the events not yet yielded: following it on would skip events. Each call holds a connection of its own (a
   * duplicate of the store's), blocked on `XREAD` for up to `blockMs` at a time, and closed when the generator
   * finishes.
   *
   * @example
   * for await (const event of store.follow(sessionId, streamId, entryId, signal)) sse.send(event.message, event.id);
   */
  async *follow(
    sessionId: string,
    streamId: string,
    afterEntryId: string,
    signal?: AbortSignal,
    blockMs = DEFAULT_FOLLOW_BLOCK_MS,
  ): AsyncGenerator<StoredEvent, void, undefined> {
    const session = keySegment(checkId('sessionId', sessionId));
    const stream = keySegment(checkId('streamId', streamId));
    if (!isEntryId(afterEntryId)) throw new Error('RedisEventStore: afterEntryId must be a Redis stream entry id');
    if (!Number.isSafeInteger(blockMs) || blockMs <= 0 || blockMs > MAX_FOLLOW_BLOCK_MS)
      throw new Error(`RedisEventStore: blockMs must be an integer from 1 to ${MAX_FOLLOW_BLOCK_MS}`);
    if (signal?.aborted) return;
    const commandTimeout = blockMs + (this.redis.options.commandTimeout ?? 2_000);
    const reader = this.redis.duplicate({ lazyConnect: true, enableOfflineQueue: false, commandTimeout });
    // Its failures reach the caller through the commands; without a listener an 'error' event would crash.
    reader.on('error', () => undefined);
    const stop = (): void => reader.disconnect();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      await reader.connect();
      let cursor = afterEntryId;
      while (!signal?.aborted) {
        const reply = await this.read(session, streamId, cursor, FOLLOW_BATCH, false);
        if (!reply)
          throw new Error(`RedisEventStore: stream ${streamId} is gone or was trimmed past ${cursor}: cannot follow`);
        yield* this.events(streamId, reply);
        const [status, last] = reply;
        if (status === 'ended') return;
        const moved = last !== cursor;
        cursor = last;
        // Waits only once everything recorded was read; XREAD after `cursor` answers at once if more came since.
        if (status === 'open' && !moved && !signal?.aborted)
          await reader.xread('COUNT', 1, 'BLOCK', blockMs, 'STREAMS', this.keys.stream(session, stream), cursor);
      }
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    } finally {
      signal?.removeEventListener('abort', stop);
      reader.disconnect();
    }
  }

  /** The counts of streams and bytes the store keeps (for monitoring and tests). */
  async stats(): Promise<RedisEventStoreStats> {
    const [streams, bytes] = await Promise.all([
      this.redis.zcard(this.keys.index),
      this.redis.hget(this.keys.bytes, ':total'),
    ]);
    return { streams, bytes: Number(bytes ?? 0) };
  }

  /** Pings Redis (bounded by the client's command timeout); never throws. */
  health(): Promise<RedisHealth> {
    return pingHealth(this.redis);
  }

  private read(session: string, streamId: string, cursor: string, limit: number, strict: boolean): Promise<ReadReply> {
    const stream = keySegment(streamId);
    return this.commands.conduitEventStoreRead(
      this.keys.meta(session, stream),
      this.keys.stream(session, stream),
      cursor,
      limit,
      this.options.maxBytesPerStream,
      strict ? '1' : '0',
    );
  }

  private events(streamId: string, reply: NonNullable<ReadReply>): StoredEvent[] {
    const events: StoredEvent[] = [];
    for (let n = 2; n + 1 < reply.length; n += 2) {
      const id = `${streamId}:${reply[n]}`;
      let message: JsonRpcMessage;
      try {
        message = JSON.parse(reply[n + 1]) as JsonRpcMessage;
      } catch {
        throw new Error(`RedisEventStore: the stored event ${id} is not valid JSON`);
      }
      events.push({ id, message });
    }
    return events;
  }
}

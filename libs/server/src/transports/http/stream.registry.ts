import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { McpSession } from '../../session/mcp-session';
import { storeCall } from '../../session/store.call';
import { EventReplay, EventStore } from './event.store';
import { sendEmpty, sendError } from './http-response.util';
import { Exchange } from './post.exchange';
import { ReplyStream } from './post.reply';
import { ResumableStream } from './resumable.stream';
import { SseStream } from './sse.stream';

// Streams of sessions at this revision or later open with a priming event (SEP-1699).
const PRIMING_REVISION = '2025-11-25';

/**
 * The SSE streams of one Streamable HTTP endpoint's sessions: the streams POST replies switch to (recorded in the
 * event store when the session is stateful), each session's standalone `GET` stream, and their resumption with
 * `Last-Event-ID`.
 */
export class StreamRegistry {
  // POST reply streams still running, by stream id: a resumption attaches to them.
  private readonly liveStreams = new Map<string, ResumableStream>();
  private readonly standaloneStreamIds = new WeakMap<McpSession, string>();

  constructor(
    readonly eventStore: EventStore,
    // The server's name, in the stream events (`conduit-mcp:stream`).
    private readonly server: string,
    private readonly keepAliveMs: number,
    // Bytes a connection may hold unread by its client before it is cut off (SseStream's default when undefined).
    private readonly maxBufferedBytes?: number,
  ) {}

  /** The SSE stream a POST's reply switches to: resumable on a stateful session, a plain stream otherwise. */
  openReplyStream(res: ServerResponse, exchange: Exchange): ReplyStream {
    const connection = new SseStream(res, {
      keepAliveMs: this.keepAliveMs,
      headers: exchange.headers(true),
      maxBufferedBytes: this.maxBufferedBytes,
      reportAs: { server: this.server, kind: 'reply' },
    });
    if (!exchange.resumable) return { send: (message) => connection.send(message), finish: () => connection.end() };
    const { session } = exchange;
    const stream = new ResumableStream(this.eventStore, session.id, randomUUID());
    stream.attach(connection);
    this.liveStreams.set(stream.streamId, stream);
    if (primesStreams(session)) stream.prime();
    return {
      send: (message) => stream.send(message),
      finish: () => {
        stream.finish();
        this.liveStreams.delete(stream.streamId);
      },
      closeConnection: (retryMs) => stream.closeConnection(retryMs),
    };
  }

  /**
   * Serves a validated `GET` on `session`: with `Last-Event-ID`, resumes the stream that event belongs to (a POST's,
   * or the standalone one); without, opens the standalone stream (409 while one is open). Rejects with a
   * `StoreUnavailableError` when the event store fails or does not answer in time.
   */
  async serveGet(res: ServerResponse, session: McpSession, lastEventId: string | undefined): Promise<void> {
    const replay = lastEventId
      ? await storeCall('event', () => this.eventStore.replayAfter(session.id, lastEventId))
      : undefined;
    if (replay && replay.streamId !== this.standaloneStreamIds.get(session)) return this.resume(res, replay);
    if (!replay && session.outbound && !session.outbound.closed) {
      return sendError(res, 409, 'Conflict: the session already has a GET stream open');
    }
    this.openStandalone(res, session, replay);
  }

  // Resumes a POST's stream: the events after `Last-Event-ID`, then, while its request runs, the rest.
  private resume(res: ServerResponse, replay: EventReplay): void {
    const live = replay.ended ? undefined : this.liveStreams.get(replay.streamId);
    // Nothing left and nothing to come: 204 tells an SSE client to stop reconnecting.
    if (replay.events.length === 0 && !live) return sendEmpty(res, 204);
    const connection = new SseStream(res, {
      keepAliveMs: this.keepAliveMs,
      maxBufferedBytes: this.maxBufferedBytes,
      reportAs: { server: this.server, kind: 'resume' },
    });
    for (const event of replay.events) connection.send(event.message, undefined, event.id);
    if (live) live.attach(connection);
    else connection.end();
  }

  // Opens (or, after `Last-Event-ID`, continues) the session's standalone stream and makes it `session.outbound`.
  private openStandalone(res: ServerResponse, session: McpSession, replay: EventReplay | undefined): void {
    let streamId = this.standaloneStreamIds.get(session);
    if (!streamId) this.standaloneStreamIds.set(session, (streamId = randomUUID()));
    const connection = new SseStream(res, {
      keepAliveMs: this.keepAliveMs,
      onKeepAlive: () => session.touch(),
      maxBufferedBytes: this.maxBufferedBytes,
      reportAs: { server: this.server, kind: 'get' },
    });
    for (const event of replay?.events ?? []) connection.send(event.message, undefined, event.id);
    const stream = new ResumableStream(this.eventStore, session.id, streamId);
    stream.attach(connection);
    if (!replay && primesStreams(session)) stream.prime();
    const previous = session.outbound;
    // Setting the outbound delivers the notifications the session kept while it had none.
    session.outbound = stream;
    if (previous instanceof ResumableStream && previous !== stream) previous.detach();
    const stopWatching = session.onClose(() => connection.end());
    connection.onClose(() => {
      stopWatching();
      stream.detach();
      if (session.outbound === stream) session.outbound = undefined;
    });
  }
}

function primesStreams(session: McpSession): boolean {
  return session.revision !== undefined && session.revision >= PRIMING_REVISION;
}

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import {
  ClassifiedMessage,
  DEFAULT_HTTP_REVISION,
  ErrorCode,
  JsonRpcId,
  JsonRpcResponse,
  LEGACY_REVISIONS,
  namesModernRevision,
  MODERN_REVISIONS,
  classifyMessage,
  errorResponse,
  isKnownRevision,
  isLegacyRevision,
  isModernRevision,
} from '@conduit-mcp/core';
import { DispatchOrigin } from '../../dispatch/dispatch-origin.interface';
import { httpTransportFacts } from './http-transport.facts';
import { McpEndpoint } from '../../dispatch/mcp-endpoint.interface';
import { McpSession } from '../../session/mcp-session';
import { EventReplay, EventStore, InMemoryEventStore } from './event.store';
import { dispatchMessage } from './endpoint.dispatch';
import { passesHostAndOrigin } from './host-origin.check';
import { readJsonBody } from './http-body.reader';
import { ResolvedHttpOptions } from './http-options';
import { accepts, headerValue, isJsonContentType } from './http-request.util';
import { sendEmpty, sendError, sendJson } from './http-response.util';
import { PostReply, ReplyStream } from './post.reply';
import { ResumableStream } from './resumable.stream';
import { SseStream } from './sse.stream';

const SESSION_HEADER = 'mcp-session-id';
const VERSION_HEADER = 'mcp-protocol-version';
// Streams of sessions at this revision or later open with a priming event (SEP-1699).
const PRIMING_REVISION = '2025-11-25';
// Modern era: JSON-RPC errors answered with 400 Bad Request (-32601 is 404).
const MODERN_BAD_REQUEST_CODES = new Set<number>([
  ErrorCode.ParseError,
  ErrorCode.InvalidRequest,
  ErrorCode.InvalidParams,
  -32020, // header mismatch
  -32021, // missing client capability
  -32022, // unsupported protocol version
]);

// How one POST is served.
interface Exchange {
  session: McpSession;
  // A stateful legacy session: SSE events are recorded and resumable, and a disconnection cancels nothing.
  resumable: boolean;
  // A modern-era request: JSON-RPC errors map to HTTP statuses.
  modern: boolean;
  // Response headers, read when the head is written (`streaming`: the reply switches to SSE).
  headers(streaming: boolean): OutgoingHttpHeaders;
  // Sees each response before it is written.
  onResponse?(response: JsonRpcResponse): void;
  // Runs once the POST is answered.
  settle?(): void;
}

const noop = () => undefined;

/**
 * The Streamable HTTP transport of one MCP endpoint path (revisions 2025-03-26 to 2025-11-25, and the stateless
 * 2026-07-28 era on the same path): `POST` messages answered as JSON or SSE, `GET` for the session's standalone
 * stream or to resume a stream with `Last-Event-ID`, `DELETE` to end a session. The caller routes by path.
 */
export class StreamableHttpHandler {
  private readonly liveStreams = new Map<string, ResumableStream>();
  private readonly standaloneStreamIds = new WeakMap<McpSession, string>();

  constructor(
    private readonly endpoint: McpEndpoint,
    private readonly options: ResolvedHttpOptions,
    private readonly eventStore: EventStore = new InMemoryEventStore(),
  ) {}

  /** Serves one request; `parsedBody` is a body an Express body parser already read. Never rejects. */
  async handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    req.on('error', noop);
    res.on('error', noop);
    try {
      if (!passesHostAndOrigin(req, res, this.options)) return;
      // The modern era has no GET stream and no sessions to delete (2026-07-28: 405 for both).
      if ((req.method === 'GET' || req.method === 'DELETE') && isModernRevision(headerValue(req, VERSION_HEADER))) {
        return sendError(res, 405, 'Method Not Allowed: the 2026-07-28 revision uses POST only', {
          headers: { Allow: 'POST' },
        });
      }
      switch (req.method) {
        case 'POST':
          return await this.post(req, res, parsedBody);
        case 'GET':
          return this.get(req, res);
        case 'DELETE':
          return this.delete(req, res);
        default:
          return sendError(res, 405, 'Method Not Allowed', { headers: { Allow: this.allowedMethods } });
      }
    } catch {
      sendError(res, 500, 'Internal error', { code: ErrorCode.InternalError });
    }
  }

  private get stateless(): boolean {
    return this.options.sessionMode === 'stateless';
  }

  private get allowedMethods(): string {
    return this.stateless ? 'POST' : 'GET, POST, DELETE';
  }

  private async post(req: IncomingMessage, res: ServerResponse, parsedBody: unknown): Promise<void> {
    if (!isJsonContentType(req))
      return sendError(res, 415, 'Unsupported Media Type: Content-Type must be application/json');
    if (!accepts(req, 'application/json') || !accepts(req, 'text/event-stream')) {
      return sendError(res, 406, 'Not Acceptable: Accept must list application/json and text/event-stream');
    }
    const body = await readJsonBody(req, this.options.bodyLimit, parsedBody);
    if (!body.ok) {
      if ('aborted' in body) return void res.destroy();
      return sendError(res, body.status, body.message, {
        code: body.code,
        headers: body.status === 413 ? { Connection: 'close' } : {},
      });
    }
    const batch = Array.isArray(body.value);
    const messages = (batch ? (body.value as unknown[]) : [body.value]).map(classifyMessage);
    if (messages.length === 0)
      return sendError(res, 400, 'Invalid Request: empty batch', { code: ErrorCode.InvalidRequest });
    const first = messages[0];
    if (!batch && first.kind === 'invalid') return sendJson(res, 400, errorResponse(first.id, first.error));
    const id = !batch && first.kind === 'request' ? first.message.id : null;
    const version = headerValue(req, VERSION_HEADER);

    // Modern era: no sessions; the dispatcher checks the version header against `_meta`.
    if (batch && isModern(messages, version)) {
      return sendError(res, 400, 'Invalid Request: the 2026-07-28 revision takes one message per POST', {
        code: ErrorCode.InvalidRequest,
      });
    }
    if (isModern(messages, version))
      return this.serve(req, res, messages, batch, transientExchange(new McpSession(undefined, false), true));
    if (version !== undefined && !isLegacyRevision(version)) return this.unsupportedVersion(res, id);
    if (this.stateless)
      return this.serve(req, res, messages, batch, transientExchange(statelessSession(version), false));

    const initialize = messages.some(
      (message) => message.kind === 'request' && message.message.method === 'initialize',
    );
    if (initialize && batch) {
      return sendError(res, 400, 'Invalid Request: initialize must not be part of a batch', {
        code: ErrorCode.InvalidRequest,
      });
    }
    const sessionId = headerValue(req, SESSION_HEADER);
    if (sessionId === undefined) {
      if (!initialize) return sendError(res, 400, 'Bad Request: Mcp-Session-Id header is required', { id });
      return this.serve(req, res, messages, batch, this.initializeExchange());
    }
    const session = this.findSession(sessionId);
    if (!session) return sendError(res, 404, 'Session not found', { code: ErrorCode.SessionNotFound, id });
    if (initialize)
      return sendError(res, 400, 'Invalid Request: the session is already initialized', {
        code: ErrorCode.InvalidRequest,
        id,
      });
    session.touch();
    return this.serve(req, res, messages, batch, { session, resumable: true, modern: false, headers: () => ({}) });
  }

  // Dispatches a POST's messages: 202 when none is a request, else JSON or, once something is streamed, SSE.
  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    messages: ClassifiedMessage[],
    batch: boolean,
    exchange: Exchange,
  ): Promise<void> {
    const { session } = exchange;
    const facts = httpTransportFacts('streamable-http', req, exchange.modern ? 'modern' : undefined);
    try {
      if (messages.every((message) => message.kind === 'notification' || message.kind === 'response')) {
        const origin: DispatchOrigin = { session, facts };
        for (const message of messages) await dispatchMessage(this.endpoint, message, origin);
        return sendEmpty(res, 202, exchange.headers(false));
      }
      const reply = new PostReply(() => this.openReplyStream(res, exchange), exchange.resumable);
      // Nothing can resume a transient session's stream, so losing the client cancels its requests.
      if (!exchange.resumable) res.on('close', () => !reply.closed && session.close());
      const origin: DispatchOrigin = { session, stream: reply, facts };
      const take = (response: JsonRpcResponse | undefined): JsonRpcResponse | undefined => {
        if (response) {
          exchange.onResponse?.(response);
          reply.answer(response);
        }
        return response;
      };
      // One message (every modern POST, most legacy ones) skips the batch's per-message promise and arrays.
      const responses = batch
        ? await Promise.all(messages.map((message) => dispatchMessage(this.endpoint, message, origin).then(take)))
        : [take(await dispatchMessage(this.endpoint, messages[0], origin))];
      if (reply.finish()) return;
      const answered = responses.filter((response): response is JsonRpcResponse => response !== undefined);
      if (answered.length === 0) return sendEmpty(res, 202, exchange.headers(false));
      const status = batch || !exchange.modern ? 200 : modernStatus(answered[0]);
      sendJson(res, status, batch ? answered : answered[0], exchange.headers(false));
    } finally {
      exchange.settle?.();
    }
  }

  // A new session for an `initialize` without a session id: kept, and its id issued, only when it succeeds.
  private initializeExchange(): Exchange {
    const session = new McpSession(randomUUID());
    let adopted = false;
    return {
      session,
      resumable: true,
      modern: false,
      // An SSE head goes out before the result is known, so it names the session up front.
      headers: (streaming) => (adopted || streaming ? { 'Mcp-Session-Id': session.id } : {}),
      onResponse: (response) => {
        if (adopted || !('result' in response) || session.closed) return;
        adopted = true;
        this.endpoint.sessions.add(session);
        session.onClose(() => this.eventStore.deleteSession(session.id));
      },
      settle: () => adopted || session.close(),
    };
  }

  private openReplyStream(res: ServerResponse, exchange: Exchange): ReplyStream {
    const connection = new SseStream(res, { keepAliveMs: this.options.keepAliveMs, headers: exchange.headers(true) });
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

  private get(req: IncomingMessage, res: ServerResponse): void {
    if (this.stateless)
      return sendError(res, 405, 'Method Not Allowed: no sessions, so no stream to GET', {
        headers: { Allow: 'POST' },
      });
    if (!accepts(req, 'text/event-stream'))
      return sendError(res, 406, 'Not Acceptable: Accept must list text/event-stream');
    if (!this.versionAccepted(req, res)) return;
    const session = this.requireSession(req, res);
    if (!session) return;
    session.touch();
    const lastEventId = headerValue(req, 'last-event-id');
    const replay = lastEventId ? this.eventStore.replayAfter(session.id, lastEventId) : undefined;
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
    const connection = new SseStream(res, { keepAliveMs: this.options.keepAliveMs });
    for (const event of replay.events) connection.send(event.message, event.id);
    if (live) live.attach(connection);
    else connection.end();
  }

  // Opens (or, after `Last-Event-ID`, continues) the session's standalone stream and makes it `session.outbound`.
  private openStandalone(res: ServerResponse, session: McpSession, replay: EventReplay | undefined): void {
    let streamId = this.standaloneStreamIds.get(session);
    if (!streamId) this.standaloneStreamIds.set(session, (streamId = randomUUID()));
    const connection = new SseStream(res, {
      keepAliveMs: this.options.keepAliveMs,
      onKeepAlive: () => session.touch(),
    });
    for (const event of replay?.events ?? []) connection.send(event.message, event.id);
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

  private delete(req: IncomingMessage, res: ServerResponse): void {
    if (this.stateless)
      return sendError(res, 405, 'Method Not Allowed: no sessions to end', { headers: { Allow: 'POST' } });
    if (!this.versionAccepted(req, res)) return;
    const session = this.requireSession(req, res);
    if (!session) return;
    this.endpoint.sessions.delete(session.id);
    session.close();
    sendEmpty(res, 204);
  }

  private requireSession(req: IncomingMessage, res: ServerResponse): McpSession | undefined {
    const sessionId = headerValue(req, SESSION_HEADER);
    if (sessionId === undefined) {
      sendError(res, 400, 'Bad Request: Mcp-Session-Id header is required');
      return undefined;
    }
    const session = this.findSession(sessionId);
    if (!session) sendError(res, 404, 'Session not found', { code: ErrorCode.SessionNotFound });
    return session;
  }

  private findSession(id: string): McpSession | undefined {
    const session = this.endpoint.sessions.get(id);
    return session && session.persistent && !session.closed ? session : undefined;
  }

  private versionAccepted(req: IncomingMessage, res: ServerResponse): boolean {
    const version = headerValue(req, VERSION_HEADER);
    if (version === undefined || isKnownRevision(version)) return true;
    this.unsupportedVersion(res, null);
    return false;
  }

  private unsupportedVersion(res: ServerResponse, id: JsonRpcId | null): void {
    const supported = [...LEGACY_REVISIONS, ...MODERN_REVISIONS].join(', ');
    sendError(res, 400, `Bad Request: Unsupported protocol version (supported: ${supported})`, { id });
  }
}

function transientExchange(session: McpSession, modern: boolean): Exchange {
  return { session, resumable: false, modern, headers: () => ({}), settle: () => session.close() };
}

// Stateless mode: a throw-away session per request, at the revision the client names (or the HTTP default).
function statelessSession(version: string | undefined): McpSession {
  const session = new McpSession(undefined, false);
  session.initialized = true;
  session.revision = isLegacyRevision(version) ? version : DEFAULT_HTTP_REVISION;
  return session;
}

// A modern-era request: the version header names a modern revision, or a message names its revision in `_meta`.
function isModern(messages: ClassifiedMessage[], version: string | undefined): boolean {
  if (isModernRevision(version)) return true;
  return messages.some(
    (message) =>
      (message.kind === 'request' || message.kind === 'notification') && namesModernRevision(message.message.params),
  );
}

function modernStatus(response: JsonRpcResponse): number {
  if (!('error' in response)) return 200;
  if (response.error.code === ErrorCode.MethodNotFound) return 404;
  return MODERN_BAD_REQUEST_CODES.has(response.error.code) ? 400 : 200;
}

function primesStreams(session: McpSession): boolean {
  return session.revision !== undefined && session.revision >= PRIMING_REVISION;
}

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, checkBatchRevision, checkBatchShape, classifyMessage, isKnownRevision } from '@conduit-mcp/core';
import { principalOf } from '../../auth/auth-principal';
import type { McpAuthInfo } from '../../auth/mcp-auth-info.interface';
import { DispatchOrigin } from '../../dispatch/dispatch-origin.interface';
import { httpTransportFacts } from './http-transport.facts';
import { McpEndpoint } from '../../dispatch/mcp-endpoint.interface';
import { McpSession } from '../../session/mcp-session';
import { StoreUnavailableError } from '../../session/store.call';
import { answersCors } from './cors.policy';
import { dispatchMessage } from './endpoint.dispatch';
import { passesHostAndOrigin } from './host-origin.check';
import { authenticateHttp } from './http-auth.gate';
import { endAtTokenExpiry } from './token-expiry';
import { answerBodyFailure, readJsonBody } from './http-body.reader';
import { findSession } from './session.lookup';
import { ResolvedHttpOptions } from './http-options';
import { accepts, headerValue, isJsonContentType, requestPath } from './http-request.util';
import { sendEmpty, sendError } from './http-response.util';
import { SseStream } from './sse.stream';
import { admitSession } from './session.admission';
import { sendStoreUnavailable } from './store-unavailable.reply';

const noop = () => undefined;

/**
 * The deprecated HTTP+SSE transport of revision 2024-11-05: `GET {ssePath}` opens a session whose stream first
 * names the message URL in an `endpoint` event; `POST {messagePath}?sessionId=…` delivers messages, answered 202,
 * their responses going out on the stream. Closing the stream ends the session. The caller routes by path.
 * Requests pass the Host and Origin checks, CORS and the authenticator as on the Streamable HTTP endpoint. A session
 * store that fails or does not answer makes the `GET` (its record cannot be written) or a `POST` on a session this
 * instance does not hold a 503 with `Retry-After`.
 */
export class LegacySseHandler {
  constructor(
    private readonly endpoint: McpEndpoint,
    private readonly options: ResolvedHttpOptions,
  ) {}

  /** Serves one request to the SSE path or the message path; `parsedBody` as for Streamable HTTP. Never rejects. */
  async handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    req.on('error', noop);
    res.on('error', noop);
    try {
      if (!passesHostAndOrigin(req, res, this.options)) return;
      const { cors, authenticator } = this.options;
      if (cors && answersCors(req, res, cors)) return;
      const paths = this.options.legacySse;
      const path = requestPath(req);
      const opens = paths && path === paths.ssePath && req.method === 'GET';
      const posts = paths && path === paths.messagePath && req.method === 'POST';
      if (!opens && !posts) {
        if (!paths || (path !== paths.ssePath && path !== paths.messagePath)) return sendError(res, 404, 'Not Found');
        const allow = [path === paths.ssePath && 'GET', path === paths.messagePath && 'POST', cors && 'OPTIONS']
          .filter(Boolean)
          .join(', ');
        return sendError(res, 405, 'Method Not Allowed', { headers: { Allow: allow } });
      }
      let auth: McpAuthInfo | undefined;
      if (authenticator) {
        const passage = await authenticateHttp(req, res, authenticator, 'sse', this.options.bodyDrain);
        if (!passage) return;
        auth = passage.auth;
      }
      if (opens) return await this.open(req, res, paths.messagePath, auth);
      return await this.message(req, res, parsedBody, auth);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return sendStoreUnavailable(res);
      sendError(res, 500, 'Internal error', { code: ErrorCode.InternalError });
    }
  }

  private async open(
    req: IncomingMessage,
    res: ServerResponse,
    messagePath: string,
    auth: McpAuthInfo | undefined,
  ): Promise<void> {
    if (!accepts(req, 'text/event-stream'))
      return sendError(res, 406, 'Not Acceptable: Accept must list text/event-stream');
    const ticket = admitSession(this.endpoint, req, res, auth, this.options.retryAfterSeconds);
    if (!ticket) return;
    const session = new McpSession(randomUUID());
    session.principal = principalOf(auth); // its messages must come from the caller that opened it
    session.openedOver = 'sse';
    // Fail closed: the record is written before the stream opens, so that a store that cannot keep it is a 503, not a
    // session whose messages another instance would answer 404.
    const kept = await this.endpoint.sessions.add(session, ticket);
    if (!kept.ok) {
      this.endpoint.sessions.closeLocal(session.id);
      return sendStoreUnavailable(res);
    }
    const connection = new SseStream(res, {
      keepAliveMs: this.options.keepAliveMs,
      onKeepAlive: () => session.touch(),
      maxBufferedBytes: this.options.maxSseBufferBytes,
      reportAs: { server: this.endpoint.options.name, kind: 'sse' },
    });
    endAtTokenExpiry(res, auth);
    if (connection.closed || session.closed) {
      this.endpoint.sessions.delete(session.id);
      return connection.end();
    }
    connection.writeEvent({ event: 'endpoint', data: `${messagePath}?sessionId=${encodeURIComponent(session.id)}` });
    session.outbound = connection;
    session.onClose(() => connection.end());
    connection.onClose(() => {
      this.endpoint.sessions.delete(session.id);
      session.close();
    });
  }

  private async message(
    req: IncomingMessage,
    res: ServerResponse,
    parsedBody: unknown,
    auth: McpAuthInfo | undefined,
  ): Promise<void> {
    const sessionId = sessionIdOf(req);
    if (!sessionId) return sendError(res, 400, 'Bad Request: sessionId query parameter is required');
    // Live here (this instance holds its stream), else adopted from the session store: its stream is elsewhere.
    let session = findSession(this.endpoint, sessionId, principalOf(auth), 'sse');
    if (session instanceof Promise) session = await session;
    if (!session) return sendError(res, 404, 'Session not found', { code: ErrorCode.SessionNotFound });
    if (!isJsonContentType(req))
      return sendError(res, 415, 'Unsupported Media Type: Content-Type must be application/json');
    const version = headerValue(req, 'mcp-protocol-version');
    if (version !== undefined && !isKnownRevision(version))
      return sendError(res, 400, 'Bad Request: Unsupported protocol version');
    const body = await readJsonBody(req, this.options.bodyLimit, parsedBody);
    if (!body.ok) return answerBodyFailure(req, res, body, this.options.bodyDrain);
    const batch = Array.isArray(body.value);
    if (batch) {
      // Measured before anything is made of its messages; refused where the session's revision has no batches.
      let verdict = checkBatchShape(body.value as unknown[], this.options.maxBatchLength);
      if (verdict.ok && session.revision !== undefined) verdict = checkBatchRevision(session.revision);
      if (!verdict.ok) return sendError(res, 400, verdict.message, { code: ErrorCode.InvalidRequest });
    }
    const messages = (batch ? (body.value as unknown[]) : [body.value]).map(classifyMessage);
    session.touch();
    sendEmpty(res, 202);
    // The session's stream, or, when another instance holds it, the bus to that instance.
    const stream = session.outbound ?? this.endpoint.relayTo?.(session.id);
    const origin: DispatchOrigin = { session, stream, facts: httpTransportFacts('sse', req, undefined, auth) };
    for (const message of messages) {
      // The response waits one turn of the event loop so it does not share a network read with the notifications
      // just sent: the official SDK client dispatches every event of a read at once and handles notifications a
      // microtask late, so a final progress notification would otherwise reach it after its request had ended.
      void dispatchMessage(this.endpoint, message, origin).then(
        (response) => response && setImmediate(() => stream?.send(response)),
      );
    }
  }
}

function sessionIdOf(req: IncomingMessage): string | null {
  try {
    return new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId');
  } catch {
    return null;
  }
}

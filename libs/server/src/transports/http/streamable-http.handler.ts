import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, isModernRevision } from '@conduit-mcp/core';
import { principalOf } from '../../auth/auth-principal';
import type { McpAuthInfo } from '../../auth/mcp-auth-info.interface';
import { McpEndpoint } from '../../dispatch/mcp-endpoint.interface';
import { StoreUnavailableError } from '../../session/store.call';
import { answersCors } from './cors.policy';
import { EventStore, InMemoryEventStore } from './event.store';
import { passesHostAndOrigin } from './host-origin.check';
import { authenticateHttp } from './http-auth.gate';
import { endAtTokenExpiry } from './token-expiry';
import { ResolvedHttpOptions } from './http-options';
import { accepts, headerValue } from './http-request.util';
import { sendEmpty, sendError } from './http-response.util';
import { VERSION_HEADER, requireSession, versionAccepted } from './session.lookup';
import { StreamRegistry } from './stream.registry';
import { StreamablePostHandler } from './streamable-post.handler';
import { sendStoreUnavailable } from './store-unavailable.reply';

const noop = () => undefined;

/**
 * The Streamable HTTP transport of one MCP endpoint path (revisions 2025-03-26 to 2025-11-25, and the stateless
 * 2026-07-28 era on the same path): `POST` messages answered as JSON or SSE, `GET` for the session's standalone
 * stream or to resume a stream with `Last-Event-ID`, `DELETE` to end a session. The caller routes by path.
 *
 * Every request passes, in order: the Host and Origin checks, CORS (`http.cors`: preflights are answered here), the
 * method, and the authenticator (`http.authenticator`), before anything reads its body or dispatches it. A session or
 * event store that fails or does not answer makes a request that needs it a 503 with `Retry-After`.
 */
export class StreamableHttpHandler {
  private readonly streams: StreamRegistry;
  private readonly posts: StreamablePostHandler;

  constructor(
    private readonly endpoint: McpEndpoint,
    private readonly options: ResolvedHttpOptions,
    eventStore: EventStore = new InMemoryEventStore(),
  ) {
    this.streams = new StreamRegistry(
      eventStore,
      endpoint.options.name,
      options.keepAliveMs,
      options.maxSseBufferBytes,
    );
    this.posts = new StreamablePostHandler(endpoint, options, this.streams);
    // A session's recorded streams go when it is ended for good (on whichever instance), not when it only closes here.
    endpoint.sessions.onEnded((session) => {
      if ((session.openedOver ?? 'streamable-http') !== 'streamable-http') return;
      void Promise.resolve()
        .then(() => eventStore.deleteSession(session.id))
        .catch(() => undefined); // a store that cannot delete lets the streams expire
    });
  }

  /** Serves one request; `parsedBody` is a body an Express body parser already read. Never rejects. */
  async handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    req.on('error', noop);
    res.on('error', noop);
    try {
      if (!passesHostAndOrigin(req, res, this.options)) return;
      const { cors, authenticator } = this.options;
      if (cors && answersCors(req, res, cors)) return;
      const method = req.method;
      if (method !== 'POST' && method !== 'GET' && method !== 'DELETE')
        return sendError(res, 405, 'Method Not Allowed', { headers: { Allow: this.allowedMethods } });
      // The modern era has no GET stream and no sessions to delete (2026-07-28: 405 for both).
      if (method !== 'POST' && isModernRevision(headerValue(req, VERSION_HEADER))) {
        return sendError(res, 405, 'Method Not Allowed: the 2026-07-28 revision uses POST only', {
          headers: { Allow: 'POST' },
        });
      }
      // Awaited only when there is an authenticator: without one, a POST costs no extra promise.
      let auth: McpAuthInfo | undefined;
      if (authenticator) {
        const passage = await authenticateHttp(req, res, authenticator, 'streamable-http', this.options.bodyDrain);
        if (!passage) return;
        auth = passage.auth;
      }
      if (method === 'POST') return await this.posts.handle(req, res, parsedBody, auth);
      return await (method === 'GET' ? this.get(req, res, auth) : this.delete(req, res, auth));
    } catch (error) {
      if (error instanceof StoreUnavailableError) return sendStoreUnavailable(res);
      sendError(res, 500, 'Internal error', { code: ErrorCode.InternalError });
    }
  }

  private get stateless(): boolean {
    return this.options.sessionMode === 'stateless';
  }

  private get allowedMethods(): string {
    const methods = this.stateless ? 'POST' : 'GET, POST, DELETE';
    return this.options.cors ? `${methods}, OPTIONS` : methods;
  }

  private async get(req: IncomingMessage, res: ServerResponse, auth: McpAuthInfo | undefined): Promise<void> {
    if (this.stateless)
      return sendError(res, 405, 'Method Not Allowed: no sessions, so no stream to GET', {
        headers: { Allow: 'POST' },
      });
    if (!accepts(req, 'text/event-stream'))
      return sendError(res, 406, 'Not Acceptable: Accept must list text/event-stream');
    if (!versionAccepted(req, res)) return;
    const session = await requireSession(this.endpoint, req, res, principalOf(auth));
    if (!session) return;
    session.touch();
    endAtTokenExpiry(res, auth);
    await this.streams.serveGet(res, session, headerValue(req, 'last-event-id'));
  }

  private async delete(req: IncomingMessage, res: ServerResponse, auth: McpAuthInfo | undefined): Promise<void> {
    if (this.stateless)
      return sendError(res, 405, 'Method Not Allowed: no sessions to end', { headers: { Allow: 'POST' } });
    if (!versionAccepted(req, res)) return;
    const session = await requireSession(this.endpoint, req, res, principalOf(auth));
    if (!session) return;
    // Answered once the record is gone and the other instances were told: the id is dead everywhere from here on.
    await this.endpoint.sessions.end(session.id);
    session.close();
    sendEmpty(res, 204);
  }
}

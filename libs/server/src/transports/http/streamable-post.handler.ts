import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ClassifiedMessage,
  ErrorCode,
  JsonRpcResponse,
  Revision,
  checkBatchRevision,
  checkBatchShape,
  classifyMessage,
  errorResponse,
  httpHintOf,
  isLegacyRevision,
  isModernRevision,
  namesModernRevision,
} from '@conduit-mcp/core';
import { principalOf } from '../../auth/auth-principal';
import type { McpAuthInfo } from '../../auth/mcp-auth-info.interface';
import { DispatchOrigin } from '../../dispatch/dispatch-origin.interface';
import { McpEndpoint } from '../../dispatch/mcp-endpoint.interface';
import { McpSession } from '../../session/mcp-session';
import { StoreUnavailableError } from '../../session/store.call';
import { dispatchMessage } from './endpoint.dispatch';
import { answerBodyFailure, readJsonBody } from './http-body.reader';
import { ResolvedHttpOptions } from './http-options';
import { accepts, headerValue, isJsonContentType } from './http-request.util';
import { sendEmpty, sendError, sendJson } from './http-response.util';
import { httpTransportFacts } from './http-transport.facts';
import { hintedHeaders, hintedStatus, modernStatus } from './json-reply.status';
import { Exchange, initializeExchange, sessionExchange, statelessSession, transientExchange } from './post.exchange';
import { PostReply } from './post.reply';
import { admitSession } from './session.admission';
import { SESSION_HEADER, VERSION_HEADER, findSession, unsupportedVersion } from './session.lookup';
import { StreamRegistry } from './stream.registry';
import { sendStoreUnavailable, storeUnavailableResponse } from './store-unavailable.reply';
import { endAtTokenExpiry } from './token-expiry';

/**
 * A Streamable HTTP `POST`: reads and classifies the body, chooses how to serve it (modern era, stateless, a new
 * session for `initialize`, or an existing session), dispatches its messages, and answers 202, JSON, or SSE once
 * something is streamed.
 */
export class StreamablePostHandler {
  constructor(
    private readonly endpoint: McpEndpoint,
    private readonly options: ResolvedHttpOptions,
    private readonly streams: StreamRegistry,
  ) {}

  /** Serves one POST; `parsedBody` is a body an Express body parser already read, `auth` the authenticator's word. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    parsedBody: unknown,
    auth: McpAuthInfo | undefined,
  ): Promise<void> {
    if (!isJsonContentType(req))
      return sendError(res, 415, 'Unsupported Media Type: Content-Type must be application/json');
    if (!accepts(req, 'application/json') || !accepts(req, 'text/event-stream')) {
      return sendError(res, 406, 'Not Acceptable: Accept must list application/json and text/event-stream');
    }
    const body = await readJsonBody(req, this.options.bodyLimit, parsedBody);
    if (!body.ok) return answerBodyFailure(req, res, body, this.options.bodyDrain);
    const batch = Array.isArray(body.value);
    // A batch is measured before anything is made of its messages, so a long one costs no more than a short one.
    if (batch) {
      const shape = checkBatchShape(body.value as unknown[], this.options.maxBatchLength);
      if (!shape.ok) return refuseBatch(res, shape.message);
    }
    const messages = (batch ? (body.value as unknown[]) : [body.value]).map(classifyMessage);
    const first = messages[0];
    if (!batch && first.kind === 'invalid') return sendJson(res, 400, errorResponse(first.id, first.error));
    const id = !batch && first.kind === 'request' ? first.message.id : null;
    const version = headerValue(req, VERSION_HEADER);

    // Modern era: no sessions; the dispatcher checks the version header against `_meta`.
    const modern = isModern(messages, version);
    if (modern && batch) {
      return sendError(res, 400, 'Invalid Request: the 2026-07-28 revision takes one message per POST', {
        code: ErrorCode.InvalidRequest,
      });
    }
    if (modern)
      return this.serve(req, res, messages, batch, transientExchange(new McpSession(undefined, false), true), auth);
    if (version !== undefined && !isLegacyRevision(version)) return unsupportedVersion(res, id);
    if (this.options.sessionMode === 'stateless') {
      const session = statelessSession(version);
      if (batch && session.revision !== undefined && refusesBatch(res, session.revision)) return;
      return this.serve(req, res, messages, batch, transientExchange(session, false), auth);
    }

    // Never in a batch: checkBatchShape refused those.
    const initialize = !batch && first.kind === 'request' && first.message.method === 'initialize';
    const sessionId = headerValue(req, SESSION_HEADER);
    if (sessionId === undefined) {
      if (!initialize) return sendError(res, 400, 'Bad Request: Mcp-Session-Id header is required', { id });
      const ticket = admitSession(this.endpoint, req, res, auth, this.options.retryAfterSeconds, id);
      if (!ticket) return;
      const exchange = initializeExchange(this.endpoint, this.streams.eventStore, ticket);
      return this.serve(req, res, messages, batch, exchange, auth);
    }
    let session = findSession(this.endpoint, sessionId, principalOf(auth), 'streamable-http');
    if (session instanceof Promise) {
      // Not live here: looked up in the session store, which may fail (503, the client retries).
      try {
        session = await session;
      } catch (error) {
        if (error instanceof StoreUnavailableError) return sendStoreUnavailable(res, id);
        throw error;
      }
    }
    if (!session) return sendError(res, 404, 'Session not found', { code: ErrorCode.SessionNotFound, id });
    if (initialize)
      return sendError(res, 400, 'Invalid Request: the session is already initialized', {
        code: ErrorCode.InvalidRequest,
        id,
      });
    if (batch && session.revision !== undefined && refusesBatch(res, session.revision)) return;
    return this.serve(req, res, messages, batch, sessionExchange(session), auth);
  }

  // Dispatches a POST's messages: 202 when none is a request, else JSON or, once something is streamed, SSE.
  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    messages: ClassifiedMessage[],
    batch: boolean,
    exchange: Exchange,
    auth: McpAuthInfo | undefined,
  ): Promise<void> {
    const { session } = exchange;
    const facts = httpTransportFacts('streamable-http', req, exchange.modern ? 'modern' : undefined, auth);
    try {
      if (messages.every((message) => message.kind === 'notification' || message.kind === 'response')) {
        const origin: DispatchOrigin = { session, facts };
        for (const message of messages) await dispatchMessage(this.endpoint, message, origin);
        return sendEmpty(res, 202, exchange.headers(false));
      }
      const reply = new PostReply(() => this.streams.openReplyStream(res, exchange), exchange.resumable);
      // A subscription stream lives as long as the client wants: no longer than its token.
      if (!batch && messages[0].kind === 'request' && messages[0].message.method === 'subscriptions/listen')
        endAtTokenExpiry(res, auth);
      // Nothing can resume a transient session's stream, so losing the client cancels its requests.
      if (!exchange.resumable) res.on('close', () => !reply.closed && session.close());
      const origin: DispatchOrigin = { session, stream: reply, facts };
      const take = (response: JsonRpcResponse | undefined): JsonRpcResponse | undefined => {
        if (response) reply.answer(response);
        return response;
      };
      if (batch) {
        const responses = await Promise.all(
          messages.map((message) => dispatchMessage(this.endpoint, message, origin).then(take)),
        );
        if (reply.finish()) return;
        const answered = responses.filter((response): response is JsonRpcResponse => response !== undefined);
        if (answered.length === 0) return sendEmpty(res, 202, exchange.headers(false));
        return sendJson(res, 200, answered, exchange.headers(false));
      }
      // One message (every modern POST, most legacy ones): no per-message promise, no arrays.
      const answered = await dispatchMessage(this.endpoint, messages[0], origin);
      if (answered && exchange.keep && !(await exchange.keep(answered))) {
        // The new session's record could not be written: no session, and the client retries.
        reply.answer(storeUnavailableResponse(answered.id ?? null));
        if (!reply.finish()) sendStoreUnavailable(res, answered.id ?? null);
        return;
      }
      const response = take(answered);
      if (reply.finish()) return;
      if (response === undefined) return sendEmpty(res, 202, exchange.headers(false));
      // An McpError may ask for its own status and headers (an insufficient scope's 403 and challenge).
      const hint = 'error' in response ? httpHintOf(response) : undefined;
      const status = exchange.modern ? modernStatus(response) : 200;
      if (hint === undefined) return sendJson(res, status, response, exchange.headers(false));
      sendJson(res, hintedStatus(hint, status), response, hintedHeaders(hint, exchange.headers(false)));
    } finally {
      exchange.settle?.();
    }
  }
}

function refuseBatch(res: ServerResponse, message: string): void {
  sendError(res, 400, message, { code: ErrorCode.InvalidRequest });
}

// Refuses (400, -32600) a batch sent at a revision without batches; true when it did.
function refusesBatch(res: ServerResponse, revision: Revision): boolean {
  const verdict = checkBatchRevision(revision);
  if (!verdict.ok) refuseBatch(res, verdict.message);
  return !verdict.ok;
}

// A modern-era request: the version header names a modern revision, or a message names its revision in `_meta`.
function isModern(messages: ClassifiedMessage[], version: string | undefined): boolean {
  if (isModernRevision(version)) return true;
  for (const message of messages) {
    if ((message.kind === 'request' || message.kind === 'notification') && namesModernRevision(message.message.params))
      return true;
  }
  return false;
}

import { randomUUID } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import { DEFAULT_HTTP_REVISION, JsonRpcResponse, isLegacyRevision } from '@conduit-mcp/core';
import { McpEndpoint } from '../../dispatch/mcp-endpoint.interface';
import { SessionTicket } from '../../session/live-sessions';
import { McpSession } from '../../session/mcp-session';
import { EventStore } from './event.store';

/** How one Streamable HTTP POST is served: on which session, and what its reply looks like. */
export interface Exchange {
  session: McpSession;
  // A stateful legacy session: SSE events are recorded and resumable, and a disconnection cancels nothing.
  resumable: boolean;
  // A modern-era request: JSON-RPC errors map to HTTP statuses.
  modern: boolean;
  // Response headers, read when the head is written (`streaming`: the reply switches to SSE).
  headers(streaming: boolean): OutgoingHttpHeaders;
  // Sees the response of an `initialize` before it is written; false when the session it made could not be kept
  // (its record not written: the reply is a 503 instead). Never in a batch: batches cannot hold an `initialize`.
  keep?(response: JsonRpcResponse): Promise<boolean>;
  // Runs once the POST is answered.
  settle?(): void;
}

/** A POST on an existing stateful session. */
export function sessionExchange(session: McpSession): Exchange {
  return { session, resumable: true, modern: false, headers: () => ({}) };
}

/** A POST served on a throw-away session (modern era, stateless mode), closed once the POST is answered. */
export function transientExchange(session: McpSession, modern: boolean): Exchange {
  return { session, resumable: false, modern, headers: () => ({}), settle: () => session.close() };
}

/** Stateless mode: a throw-away session per request, at the revision the client names (or the HTTP default). */
export function statelessSession(version: string | undefined): McpSession {
  const session = new McpSession(undefined, false);
  session.initialized = true;
  session.revision = isLegacyRevision(version) ? version : DEFAULT_HTTP_REVISION;
  return session;
}

/**
 * A new session for an `initialize` without a session id, in the room `ticket` holds: kept on the endpoint, and its
 * id issued, only when it succeeds and its record is written to the session store (else the room is given back).
 * Its recorded events stay when it only closes here (another instance may serve it): they go when it is ended for
 * good (see `StreamableHttpHandler`), or with the event store's expiry.
 */
export function initializeExchange(endpoint: McpEndpoint, eventStore: EventStore, ticket: SessionTicket): Exchange {
  const session = new McpSession(randomUUID());
  session.openedOver = 'streamable-http';
  let adopted = false;
  return {
    session,
    resumable: true,
    modern: false,
    // An SSE head goes out before the result is known, so it names the session up front.
    headers: (streaming) => (adopted || streaming ? { 'Mcp-Session-Id': session.id } : {}),
    keep: async (response) => {
      if (adopted || !('result' in response) || session.closed) return true;
      // Fail closed: a session whose record is not in the shared store would live on this instance only, and
      // another instance would answer its requests 404.
      const kept = await endpoint.sessions.add(session, ticket);
      if (kept.ok) {
        adopted = true;
        return true;
      }
      endpoint.sessions.closeLocal(session.id);
      // A reply that went out as SSE already recorded events under the session that is not to be.
      void Promise.resolve()
        .then(() => eventStore.deleteSession(session.id))
        .catch(() => undefined);
      return false;
    },
    settle: () => {
      if (adopted) return;
      ticket.release();
      session.close();
    },
  };
}

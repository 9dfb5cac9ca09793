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
  // Sees each response before it is written.
  onResponse?(response: JsonRpcResponse): void;
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
 * id issued, only when it succeeds (else the room is given back); its recorded events are dropped when it ends.
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
    onResponse: (response) => {
      if (adopted || !('result' in response) || session.closed) return;
      adopted = true;
      endpoint.sessions.add(session, ticket);
      session.onClose(() => void Promise.resolve(eventStore.deleteSession(session.id)).catch(() => undefined));
    },
    settle: () => {
      if (adopted) return;
      ticket.release();
      session.close();
    },
  };
}

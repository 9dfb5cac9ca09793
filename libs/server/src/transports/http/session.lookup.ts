import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, JsonRpcId, LEGACY_REVISIONS, MODERN_REVISIONS, isKnownRevision } from '@conduit-mcp/core';
import { McpEndpoint } from '../../dispatch/mcp-endpoint.interface';
import { McpSession } from '../../session/mcp-session';
import { headerValue } from './http-request.util';
import { sendError } from './http-response.util';

export const SESSION_HEADER = 'mcp-session-id';
export const VERSION_HEADER = 'mcp-protocol-version';

/**
 * The persistent session `id` names for the caller `principal` on the transport `over`: live on this instance (no
 * await), or adopted from the session store; undefined for an unknown, throw-away or ended one, one another
 * principal opened, or one opened on another transport (an HTTP+SSE session's id posted to Streamable HTTP, or the
 * reverse: its answers would go where nobody reads them). A lookup in the store rejects with a `StoreUnavailableError`
 * when the store fails (the handlers answer 503).
 */
export function findSession(
  endpoint: McpEndpoint,
  id: string,
  principal: string | undefined,
  over: 'streamable-http' | 'sse',
): McpSession | undefined | Promise<McpSession | undefined> {
  const found = endpoint.sessions.find(id, principal);
  return found instanceof Promise ? found.then((session) => usable(session, over)) : usable(found, over);
}

function usable(session: McpSession | undefined, over: 'streamable-http' | 'sse'): McpSession | undefined {
  return session && session.persistent && !session.closed && (session.openedOver ?? 'streamable-http') === over
    ? session
    : undefined;
}

/** The session a `GET` or `DELETE` names in `Mcp-Session-Id`; answers 400 (no header) or 404 (none such) otherwise. */
export async function requireSession(
  endpoint: McpEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  principal: string | undefined,
): Promise<McpSession | undefined> {
  const sessionId = headerValue(req, SESSION_HEADER);
  if (sessionId === undefined) {
    sendError(res, 400, 'Bad Request: Mcp-Session-Id header is required');
    return undefined;
  }
  const session = await findSession(endpoint, sessionId, principal, 'streamable-http');
  if (!session) sendError(res, 404, 'Session not found', { code: ErrorCode.SessionNotFound });
  return session;
}

/** Whether the `MCP-Protocol-Version` header is absent or names a known revision; answers 400 otherwise. */
export function versionAccepted(req: IncomingMessage, res: ServerResponse): boolean {
  const version = headerValue(req, VERSION_HEADER);
  if (version === undefined || isKnownRevision(version)) return true;
  unsupportedVersion(res, null);
  return false;
}

/** Answers 400 naming the revisions served. */
export function unsupportedVersion(res: ServerResponse, id: JsonRpcId | null): void {
  const supported = [...LEGACY_REVISIONS, ...MODERN_REVISIONS].join(', ');
  sendError(res, 400, `Bad Request: Unsupported protocol version (supported: ${supported})`, { id });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, JsonRpcId } from '@conduit-mcp/core';
import type { McpAuthInfo } from '../../auth/mcp-auth-info.interface';
import { McpEndpoint } from '../../dispatch/mcp-endpoint.interface';
import { SessionTicket } from '../../session/live-sessions';
import { sessionOwner } from './client-address';
import { sendError } from './http-response.util';

const REFUSALS = {
  full: 'Service Unavailable: the server has as many sessions open as it allows; retry later',
  'owner-full':
    'Service Unavailable: this client has as many sessions open as it allows; end one (DELETE) or retry later',
} as const;

/**
 * Room for a new HTTP session (an `initialize` without a session id, an HTTP+SSE `GET`), counted against the caller
 * (`http.maxSessionsPerPrincipal`) and against all (`http.maxSessions`). When there is none, answers 503 with
 * `Retry-After` and a -32000 error, and returns undefined.
 */
export function admitSession(
  endpoint: McpEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  auth: McpAuthInfo | undefined,
  retryAfterSeconds: number,
  id: JsonRpcId | null = null,
): SessionTicket | undefined {
  const admission = endpoint.sessions.admit(sessionOwner(req, auth));
  if (admission instanceof SessionTicket) return admission;
  sendError(res, 503, REFUSALS[admission], {
    code: ErrorCode.ServerError,
    id,
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
  return undefined;
}

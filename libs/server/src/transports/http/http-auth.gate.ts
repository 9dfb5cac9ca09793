import { Logger } from '@nestjs/common';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { validateHeaderValue } from 'node:http';
import { ErrorCode, sanitizeText } from '@conduit-mcp/core';
import type { McpAuthInfo } from '../../auth/mcp-auth-info.interface';
import type { McpAuthenticator, McpAuthResult } from '../../auth/mcp-authenticator.interface';
import { TransportKind } from '../../dispatch/transport-facts.interface';
import { BodyDrainLimits, refuseUnreadBody } from './body.drain';
import { httpTransportFacts } from './http-transport.facts';
import { sendError } from './http-response.util';

/** The challenge of a 401 whose authenticator named none (RFC 9110 requires one). */
export const DEFAULT_AUTH_CHALLENGE = 'Bearer';

const MESSAGE_CHARS = 256;
const logger = new Logger('McpHttp');

/** A request the authenticator let through, with what it established (undefined: nothing). */
export interface AuthPassage {
  auth: McpAuthInfo | undefined;
}

/**
 * Runs `authenticator` on a request, before its body is read. Resolves with the passage of an accepted request;
 * otherwise answers it — 401 or 403 with `WWW-Authenticate` and a JSON-RPC error body, 500 with a generic message
 * when the authenticator throws or returns nonsense — and resolves with undefined. A body not read yet is drained
 * within `drain` after the answer is written, so that a client still sending it can read the refusal; the connection
 * then closes. Never rejects.
 */
export async function authenticateHttp(
  req: IncomingMessage,
  res: ServerResponse,
  authenticator: McpAuthenticator,
  kind: TransportKind,
  drain: BodyDrainLimits,
): Promise<AuthPassage | undefined> {
  let result: McpAuthResult;
  try {
    result = await authenticator.authenticate(httpTransportFacts(kind, req, undefined));
  } catch (error) {
    logger.error(`The MCP authenticator failed: ${error instanceof Error ? error.message : String(error)}`);
    return void refuse(req, res, drain, 500, 'Internal error', {}, ErrorCode.InternalError);
  }
  if (typeof result !== 'object' || result === null || typeof result.ok !== 'boolean') {
    logger.error('The MCP authenticator returned no { ok } verdict');
    return void refuse(req, res, drain, 500, 'Internal error', {}, ErrorCode.InternalError);
  }
  if (result.ok) return { auth: result.auth };
  const status = result.status === 403 ? 403 : 401;
  const challenge = result.challenge ?? (status === 401 ? DEFAULT_AUTH_CHALLENGE : undefined);
  const headers: OutgoingHttpHeaders = {};
  if (challenge !== undefined) {
    try {
      validateHeaderValue('WWW-Authenticate', challenge);
    } catch {
      logger.error('The MCP authenticator returned a challenge that is not a valid header value');
      return void refuse(req, res, drain, 500, 'Internal error', {}, ErrorCode.InternalError);
    }
    headers['WWW-Authenticate'] = challenge;
  }
  const message =
    typeof result.message === 'string' && result.message !== ''
      ? sanitizeText(result.message, MESSAGE_CHARS)
      : status === 401
        ? 'Unauthorized'
        : 'Forbidden';
  refuse(req, res, drain, status, message, headers, ErrorCode.ServerError);
  return undefined;
}

function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  drain: BodyDrainLimits,
  status: number,
  message: string,
  headers: OutgoingHttpHeaders,
  code: number,
): void {
  // Answering leaves the body unread: closing at once could reset the connection under a client still sending it.
  if (hasUnreadBody(req)) return refuseUnreadBody(req, res, status, message, 0, drain, { code, headers });
  sendError(res, status, message, { code, headers });
}

function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.readableEnded) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

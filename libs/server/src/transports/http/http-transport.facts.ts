import type { IncomingMessage } from 'node:http';
import { Era } from '@conduit-mcp/core';
import type { McpAuthInfo } from '../../auth/mcp-auth-info.interface';
import { TransportFacts, TransportKind } from '../../dispatch/transport-facts.interface';

/**
 * An HTTP request's facts for the dispatcher: its headers (already a plain record), Origin, era hint, and who made
 * it when an authenticator said so.
 */
export function httpTransportFacts(
  kind: TransportKind,
  req: IncomingMessage,
  era: Era | undefined,
  auth?: McpAuthInfo,
): TransportFacts {
  const origin = req.headers.origin;
  return { kind, era, headers: req.headers, origin: typeof origin === 'string' ? origin : undefined, auth, raw: req };
}

import { sanitizeText } from '@conduit-mcp/core';
import { ClientTransport } from '../transports/client-transport.interface';
import { SseClientTransport } from '../transports/sse-client.transport';

/**
 * The kind of a client transport, as the channels name it: `sse` (HTTP+SSE), `streamable-http`, or `stdio`. A
 * transport without an HTTP origin (stdio, or one an app wrote) counts as `stdio`: it has one stream for everything.
 */
export function transportKindOf(transport: ClientTransport): string {
  if (transport instanceof SseClientTransport) return 'sse';
  return transport.origin === undefined ? 'stdio' : 'streamable-http';
}

/**
 * The session id the server gave, clamped: Streamable HTTP's `Mcp-Session-Id`; HTTP+SSE's is the `sessionId` of the
 * endpoint the server named (the convention of that revision's servers, this project's included).
 */
export function sessionIdOf(transport: ClientTransport): string | undefined {
  let sessionId = transport.sessionId;
  if (transport instanceof SseClientTransport) {
    const endpoint = transport.messageEndpoint;
    sessionId = (endpoint && new URL(endpoint).searchParams.get('sessionId')) || undefined;
  }
  return sessionId === undefined ? undefined : sanitizeText(sessionId, 128);
}

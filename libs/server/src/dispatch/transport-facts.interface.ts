import { Era } from '@conduit-mcp/core';
import type { McpAuthInfo } from '../auth/mcp-auth-info.interface';

/** Which transport a message came in on. */
export type TransportKind = 'streamable-http' | 'sse' | 'stdio' | 'memory';

/** Request headers as a plain record: lower-case names, a string or (repeated headers) an array of strings. */
export type TransportHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * What a transport knows about the exchange that carried a message, translated from its own request type: nothing
 * below a transport sees `IncomingMessage`, `ServerResponse` or a Fastify request.
 */
export interface TransportFacts {
  kind: TransportKind;
  /** The era, when the transport already knows it (an HTTP request whose version header names a modern revision). */
  era?: Era;
  /** The request headers (HTTP); empty for stdio and in-memory transports. */
  headers: TransportHeaders;
  /** The `Origin` header, when one was sent (and passed the transport's Origin check). */
  origin?: string;
  /** Who made the request, as the HTTP transport's `McpAuthenticator` established it; undefined without one. */
  auth?: McpAuthInfo;
  /**
   * The transport's own request object (`IncomingMessage` for HTTP), for user code only
   * (`McpRequestContext.httpRequest`); the protocol engine never reads it.
   */
  raw?: unknown;
}

/** The facts of a transport without requests of its own (stdio, in-memory): no headers. */
export function messageTransportFacts(kind: TransportKind): TransportFacts {
  return { kind, headers: NO_HEADERS };
}

const NO_HEADERS: TransportHeaders = Object.freeze({});

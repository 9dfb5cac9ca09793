import type { IncomingMessage } from 'node:http';
import { Era } from '@conduit-mcp/core';
import { TransportFacts, TransportKind } from '../../dispatch/transport-facts.interface';

/** An HTTP request's facts for the dispatcher: its headers (already a plain record), Origin and era hint. */
export function httpTransportFacts(kind: TransportKind, req: IncomingMessage, era: Era | undefined): TransportFacts {
  const origin = req.headers.origin;
  return { kind, era, headers: req.headers, origin: typeof origin === 'string' ? origin : undefined, raw: req };
}

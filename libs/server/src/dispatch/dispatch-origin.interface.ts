import type { IncomingMessage } from 'node:http';
import { Era } from '@conduit-mcp/core';
import { McpSession } from '../session/mcp-session';
import { MessageSink } from '../session/message-sink.interface';

/** Which transport a message came in on. */
export type TransportKind = 'streamable-http' | 'sse' | 'stdio' | 'memory';

/** What a transport tells the dispatcher about where a message came from and where related messages go. */
export interface DispatchOrigin {
  session: McpSession;
  transport: TransportKind;
  /** The stream for messages tied to this request (progress, logs, server-to-client requests). */
  stream?: MessageSink;
  /** The HTTP request that carried the message, when there is one. */
  httpRequest?: IncomingMessage;
  /** The era, when the transport already knows it (an HTTP request whose version header names a modern revision). */
  era?: Era;
}

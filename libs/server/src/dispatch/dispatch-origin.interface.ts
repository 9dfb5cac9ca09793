import { McpSession } from '../session/mcp-session';
import { MessageSink } from '../session/message-sink.interface';
import { TransportFacts } from './transport-facts.interface';

/** What a transport tells the dispatcher about where a message came from and where related messages go. */
export interface DispatchOrigin {
  session: McpSession;
  /** The stream for messages tied to this request (progress, logs, server-to-client requests). */
  stream?: MessageSink;
  /** What the transport knows of the exchange: kind, era hint, headers, origin. */
  facts: TransportFacts;
}

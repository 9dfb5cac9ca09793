import { JsonRpcMessage } from '@conduit-mcp/core';
import { ClientEventScope } from '../telemetry/client-telemetry';
import { ClientTransport } from '../transports/client-transport.interface';
import { EnvelopeSource } from './modern-envelope';

/**
 * What the parts of a connection (call table, era negotiator, server-message router, envelope) read of it, at the
 * moment they need it: the transport is replaced on reconnection and the era changes while it is negotiated.
 */
export interface ConnectionHost extends EnvelopeSource {
  /** The current transport; undefined before the first connect. */
  transport(): ClientTransport | undefined;
  /** Sends a message that expects no response (a notification, our answer); a no-op while there is no transport. */
  write(message: JsonRpcMessage): Promise<void>;
  /** Who a request or question belongs to, for telemetry. */
  eventScope(method: string): ClientEventScope;
}

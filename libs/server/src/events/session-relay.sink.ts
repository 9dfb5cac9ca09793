import { JsonRpcMessage } from '@conduit-mcp/core';
import { MessageSink } from '../session/message-sink.interface';
import { McpEventBus } from './mcp-event.bus';

/**
 * Where messages for a session go when another instance holds its stream (an HTTP+SSE connection opened there): each
 * one is a `session-message` on the bus, which the holding instance writes to the stream. Fire-and-forget, like any
 * stream write: a bus that cannot publish logs it itself.
 */
export class SessionRelaySink implements MessageSink {
  readonly closed = false;

  constructor(
    private readonly bus: McpEventBus,
    private readonly server: string,
    private readonly sessionId: string,
  ) {}

  send(message: JsonRpcMessage): boolean {
    const event = { type: 'session-message', server: this.server, sessionId: this.sessionId, message } as const;
    this.bus.publish(event).catch(() => undefined);
    return true;
  }
}

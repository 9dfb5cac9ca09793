import { JsonRpcMessage, JsonRpcResponse, Transport } from '@conduit-mcp/core';
import { TransportKind, messageTransportFacts } from '../dispatch/transport-facts.interface';
import { McpEndpoint } from '../dispatch/mcp-endpoint.interface';
import { McpSession } from '../session/mcp-session';
import { MessageSink } from '../session/message-sink.interface';

/** Notifications that may wait for a slow peer before more are dropped. */
const MAX_UNSENT_NOTIFICATIONS = 1_000;

/**
 * Serves one message transport (stdio, an in-memory pair) as one session: every incoming message goes to the
 * dispatcher, every response and server-initiated message goes back out on the same transport. JSON-RPC batches
 * (2025-03-26) are answered with a batch.
 */
export function connectTransport(endpoint: McpEndpoint, transport: Transport, kind: TransportKind): McpSession {
  const session = new McpSession();
  session.openedOver = kind;
  let open = true;
  let unsent = 0;
  const sink: MessageSink = {
    get closed() {
      return !open;
    },
    send(message: JsonRpcMessage) {
      if (!open) return false;
      // A peer that stops reading must not grow memory without end: past the bound, notifications are dropped
      // (responses and requests still go out, their number is bounded by the requests in flight).
      if (unsent >= MAX_UNSENT_NOTIFICATIONS && !('id' in message)) return false;
      unsent++;
      transport.send(message).then(
        () => unsent--,
        () => unsent--,
      );
      return true;
    },
  };
  session.outbound = sink;
  endpoint.sessions.add(session);

  const origin = { session, stream: sink, facts: messageTransportFacts(kind) };
  const reply = (response: JsonRpcResponse | JsonRpcResponse[] | undefined) => {
    if (response && (!Array.isArray(response) || response.length)) sink.send(response as JsonRpcMessage);
  };
  transport.onmessage = (message) => {
    if (Array.isArray(message) && message.length) {
      void Promise.all(message.map((item) => endpoint.handle(item, origin))).then((responses) =>
        reply(responses.filter((item): item is JsonRpcResponse => item !== undefined)),
      );
    } else {
      void endpoint.handle(message, origin).then(reply);
    }
  };
  transport.onclose = () => {
    open = false;
    endpoint.sessions.delete(session.id);
    session.close();
  };
  session.onClose(() => {
    if (!open) return;
    open = false;
    void transport.close().catch(() => undefined);
  });
  return session;
}

import {
  DEFAULT_MAX_BATCH_LENGTH,
  ErrorCode,
  JsonRpcMessage,
  JsonRpcResponse,
  Transport,
  checkBatchRevision,
  checkBatchShape,
  errorResponse,
} from '@conduit-mcp/core';
import type { McpAuthInfo } from '../auth/mcp-auth-info.interface';
import { TransportKind, messageTransportFacts } from '../dispatch/transport-facts.interface';
import { McpEndpoint } from '../dispatch/mcp-endpoint.interface';
import { McpSession } from '../session/mcp-session';
import { MessageSink } from '../session/message-sink.interface';

/** Notifications that may wait for a slow peer before more are dropped. */
const MAX_UNSENT_NOTIFICATIONS = 1_000;

/**
 * Serves one message transport (stdio, an in-memory pair) as one session: every incoming message goes to the
 * dispatcher, every response and server-initiated message goes back out on the same transport. JSON-RPC batches are
 * answered with a batch on a session whose revision has them (2025-03-26 and older), at most `maxBatchLength` long;
 * any other batch is refused whole with -32600, before any of its messages is looked at. `auth` is who every message
 * speaks for, when the one who connected the transport vouches for it (the testing client); stdio has none.
 */
export function connectTransport(
  endpoint: McpEndpoint,
  transport: Transport,
  kind: TransportKind,
  maxBatchLength = DEFAULT_MAX_BATCH_LENGTH,
  auth?: McpAuthInfo,
): McpSession {
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
  // Kept even when its record cannot be written: no other instance could serve this connection's session anyway.
  void endpoint.sessions.add(session);

  const facts = auth ? { ...messageTransportFacts(kind), auth } : messageTransportFacts(kind);
  const origin = { session, stream: sink, facts };
  const reply = (response: JsonRpcResponse | JsonRpcResponse[] | undefined) => {
    if (response && (!Array.isArray(response) || response.length)) sink.send(response as JsonRpcMessage);
  };
  transport.onmessage = (message) => {
    if (Array.isArray(message)) {
      const refusal = batchRefusal(message, session, maxBatchLength);
      if (refusal) return void sink.send(refusal);
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

/** Why a batch is refused (no revision negotiated yet, a revision without batches, its shape), or undefined. */
function batchRefusal(batch: unknown[], session: McpSession, maxLength: number): JsonRpcResponse | undefined {
  const shape = checkBatchShape(batch, maxLength);
  const verdict = !shape.ok
    ? shape
    : session.revision
      ? checkBatchRevision(session.revision)
      : { ok: false as const, message: 'Invalid Request: a batch needs a session initialized at 2025-03-26 or older' };
  return verdict.ok
    ? undefined
    : errorResponse(undefined, { code: ErrorCode.InvalidRequest, message: verdict.message });
}

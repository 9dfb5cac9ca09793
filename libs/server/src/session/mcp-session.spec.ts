import { JsonRpcMessage, JsonRpcRequest } from '@conduit-mcp/core';
import { McpSession, sharedNotification } from './mcp-session';
import { MessageSink } from './message-sink.interface';
import { SessionRecord } from './session-record';

/** A sink that keeps what is sent. */
function sink(): MessageSink & { sent: JsonRpcMessage[]; json: Array<string | undefined> } {
  const sent: JsonRpcMessage[] = [];
  const json: Array<string | undefined> = [];
  return { sent, json, closed: false, send: (message, text) => (sent.push(message), json.push(text), true) };
}

const ask = (session: McpSession, to: MessageSink) =>
  session.request('roots/list', {}, to, { timeoutMs: 5_000 }).catch((error: unknown) => error);

describe('McpSession', () => {
  it('gives server-to-client requests ids unique across the sessions of the process, JSON- and URL-safe', () => {
    const out = sink();
    const [first, second] = [new McpSession('a'), new McpSession('b')];
    const asked = [ask(first, out), ask(first, out), ask(second, out)];
    const ids = out.sent.map((message) => (message as JsonRpcRequest).id);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^s[A-Za-z0-9_-]+-\d+$/);
    first.close();
    second.close();
    return Promise.all(asked);
  });

  it("takes only the answers to its own questions: another copy of the session (another instance's) has none of them", async () => {
    const [here, there] = [new McpSession('shared'), new McpSession('shared')];
    const [toHere, toThere] = [sink(), sink()];
    const askedHere = here.request('roots/list', {}, toHere, { timeoutMs: 5_000 });
    const askedThere = ask(there, toThere);
    const { id } = toHere.sent[0] as JsonRpcRequest;
    const answer = { jsonrpc: '2.0' as const, id, result: { roots: [] } };
    expect(there.resolveResponse(answer)).toBe(false);
    expect(here.resolveResponse(answer)).toBe(true);
    expect(await askedHere).toEqual({ roots: [] });
    there.close();
    await askedThere;
  });

  it('takes what a client may change from a record, keeping who owns the session and where it was opened', () => {
    const record: SessionRecord = {
      id: 'r',
      revision: '2025-11-25',
      clientInfo: { name: 'c', version: '1' },
      clientCapabilities: { roots: {} },
      logLevel: 'info',
      subscriptions: ['memo://1'],
      initialized: true,
      principal: 'alice',
      transport: 'streamable-http',
      createdAt: 1,
    };
    const session = McpSession.fromRecord(record);
    expect(session.record()).toEqual(record);
    session.applyRecord({ ...record, logLevel: 'error', subscriptions: [], principal: 'mallory', transport: 'sse' });
    expect(session.record()).toEqual({ ...record, logLevel: 'error', subscriptions: [] });
    expect(session.subscribedTo('memo://1')).toBe(false);
  });

  it('keeps one copy of a broadcast while it has no stream, and hands the shared JSON to the stream that attaches', () => {
    const session = new McpSession('quiet');
    const tools = () => sharedNotification('notifications/tools/list_changed');
    const updated = (uri: string) => sharedNotification('notifications/resources/updated', { uri });
    for (let i = 0; i < 50; i++) {
      expect(session.notifyShared(tools())).toBe(true);
      session.notifyShared(updated('memo://1'));
    }
    session.notifyShared(updated('memo://2'));
    session.notify('notifications/message', { level: 'info', data: 'kept as sent' });
    session.notify('notifications/message', { level: 'info', data: 'kept as sent' });
    const out = sink();
    session.outbound = out;
    expect(out.sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'memo://1' } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'memo://2' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'kept as sent' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'kept as sent' } },
    ]);
    expect(out.json.slice(0, 3)).toEqual(out.sent.slice(0, 3).map((message) => JSON.stringify(message)));
    // With a stream, every broadcast goes out: the client reads them as they come.
    session.notifyShared(tools());
    session.notifyShared(tools());
    expect(out.sent).toHaveLength(7);
    session.close();
    expect(session.notifyShared(tools())).toBe(false);
  });
});

import { Era, JsonRpcMessage } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { ClientSendOptions, ClientTransport } from '../transports/client-transport.interface';
import { CallTable } from './call-table';
import { ConnectionHost } from './connection.host';
import { ModernEnvelope } from './modern-envelope';

/** Records what is sent; `origin` set makes it an HTTP transport (one stream per request). */
class FakeTransport implements ClientTransport {
  readonly sent: Array<{ message: JsonRpcMessage; options?: ClientSendOptions }> = [];
  failWith: Error | undefined;

  constructor(readonly origin?: string) {}

  async start(): Promise<void> {}
  async close(): Promise<void> {}

  async send(message: JsonRpcMessage, options?: ClientSendOptions): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.sent.push({ message, options });
  }

  notifications(): JsonRpcMessage[] {
    return this.sent.map(({ message }) => message).filter((message) => !('id' in message));
  }
}

/** `attached` false: a table whose connection has no transport yet. */
function table(era: Era | undefined, transport = new FakeTransport(), attached = true) {
  const host: ConnectionHost = {
    transport: () => (attached ? transport : undefined),
    write: (message) => transport.send(message),
    era: () => era,
    revision: () => (era === 'modern' ? '2026-07-28' : undefined),
    capabilities: () => ({}),
    clientInfo: () => ({ name: 'spec', version: '1.0.0' }),
    logLevel: () => undefined,
    eventScope: (method) => ({ client: 'spec', server: 's', method, era: era ?? 'legacy' }),
  };
  return { calls: new CallTable(host, new ModernEnvelope(host), { requestTimeoutMs: 1_000 }), transport };
}

describe('CallTable', () => {
  it('settles a call with the response that carries its id, and forgets it', async () => {
    const { calls, transport } = table('legacy');
    const pending = calls.send('tools/list', {});
    expect(calls.size).toBe(1);
    expect(transport.sent[0].message).toEqual({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    calls.onResponse({ jsonrpc: '2.0', id: 2, result: { other: true } }, false);
    calls.onResponse({ jsonrpc: '2.0', id: 1, result: { tools: [] } }, false);
    await expect(pending).resolves.toEqual({ tools: [] });
    expect(calls.size).toBe(0);
  });

  it("makes the server's error an rpc error and a transport's synthetic answer a transport error", async () => {
    const { calls } = table('legacy');
    const refused = calls.send('tools/call', { name: 'x' });
    const dropped = calls.send('tools/call', { name: 'y' });
    calls.onResponse({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown tool' } }, false);
    calls.onResponse({ jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'HTTP 502\u0007' } }, true);
    await expect(refused).rejects.toMatchObject({ kind: 'rpc', code: -32602 });
    const error = await dropped.catch((caught: McpClientError) => caught);
    expect(error).toMatchObject({ kind: 'transport', code: -32000 });
    expect(error.message).not.toContain('\u0007');
  });

  it('tells the server of a timed-out call with notifications/cancelled', async () => {
    const { calls, transport } = table('legacy');
    await expect(calls.send('tools/call', { name: 'slow' }, { timeout: 20 })).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(transport.notifications()).toEqual([
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'Timed out' } },
    ]);
    expect(calls.size).toBe(0);
  });

  it('sends no notifications/cancelled for initialize', async () => {
    const { calls, transport } = table('legacy');
    await expect(calls.send('initialize', {}, { timeout: 20 })).rejects.toMatchObject({ kind: 'timeout' });
    expect(transport.notifications()).toEqual([]);
  });

  it("cancels a modern HTTP call by closing its request's stream, without a notification", async () => {
    const { calls, transport } = table('modern', new FakeTransport('http://127.0.0.1:1'));
    const cancel = new AbortController();
    const pending = calls.send('tools/call', { name: 'slow' }, { signal: cancel.signal });
    const stream = transport.sent[0].options?.signal;
    expect(stream?.aborted).toBe(false);
    cancel.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    expect(stream?.aborted).toBe(true);
    expect(transport.notifications()).toEqual([]);
  });

  it("times a modern HTTP call out by closing its request's stream, without a notification", async () => {
    const { calls, transport } = table('modern', new FakeTransport('http://127.0.0.1:1'));
    await expect(calls.send('tools/call', { name: 'slow' }, { timeout: 20 })).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(transport.sent[0].options?.signal?.aborted).toBe(true);
    expect(transport.notifications()).toEqual([]);
  });

  it('keeps a legacy HTTP stream open when cancelling, and notifies instead', async () => {
    const { calls, transport } = table('legacy', new FakeTransport('http://127.0.0.1:1'));
    const cancel = new AbortController();
    const pending = calls.send('tools/call', { name: 'slow' }, { signal: cancel.signal });
    cancel.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    expect(transport.sent[0].options?.signal?.aborted).toBe(false);
    expect(transport.notifications()).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 1, reason: 'Cancelled by the client' },
      },
    ]);
  });

  it('gives a stdio call no stream signal, and modern calls their mirroring headers', () => {
    const stdio = table('modern');
    void stdio.calls.send('tools/call', { name: 'echo' }).catch(() => undefined);
    expect(stdio.transport.sent[0].options).toEqual({
      signal: undefined,
      headers: { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo' },
    });
    stdio.calls.rejectAll(() => new McpClientError('transport', 'Connection closed'));
  });

  it('fails a call whose message could not be sent, and refuses calls without a transport', async () => {
    const failing = new FakeTransport();
    failing.failWith = new Error('EPIPE');
    await expect(table('legacy', failing).calls.send('ping', {})).rejects.toMatchObject({
      kind: 'transport',
      message: 'Cannot send ping: EPIPE',
    });
    const detached = table('legacy', new FakeTransport(), false);
    await expect(detached.calls.send('ping', {})).rejects.toMatchObject({
      kind: 'transport',
      message: 'Not connected',
    });
  });

  it('fails every call in flight, each with an error of its own', async () => {
    const { calls } = table('legacy');
    const first = calls.send('ping', {}).catch((error: Error) => error);
    const second = calls.send('ping', {}).catch((error: Error) => error);
    calls.rejectAll(() => new McpClientError('transport', 'Connection closed'));
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ kind: 'transport', message: 'Connection closed' });
    expect(a).not.toBe(b);
    expect(calls.size).toBe(0);
  });

  it('resolves listen once the server acknowledges the filter, and ends it when the handle closes', async () => {
    const { calls, transport } = table('modern', new FakeTransport('http://127.0.0.1:1'));
    const listening = calls.listen({ toolsListChanged: true });
    await Promise.resolve();
    const id = (transport.sent[0].message as { id: number }).id;
    calls.acknowledge(id, { toolsListChanged: true });
    const handle = await listening;
    expect(handle.acknowledged).toEqual({ toolsListChanged: true });
    handle.close();
    await expect(handle.closed).resolves.toBe('closed');
  });

  it('fails listen when the subscription ends before its acknowledgement', async () => {
    const { calls } = table('modern');
    const listening = calls.listen({ toolsListChanged: true });
    calls.onResponse({ jsonrpc: '2.0', id: 1, result: {} }, false);
    await expect(listening).rejects.toMatchObject({ kind: 'protocol' });
  });
});

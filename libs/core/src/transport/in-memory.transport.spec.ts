import { createInMemoryTransportPair } from './in-memory.transport';

describe('createInMemoryTransportPair', () => {
  it('delivers copies asynchronously and in order, both ways', async () => {
    const [client, server] = createInMemoryTransportPair();
    const atServer: unknown[] = [];
    const atClient: unknown[] = [];
    server.onmessage = (m) => atServer.push(m);
    client.onmessage = (m) => atClient.push(m);

    const params = { n: 1 };
    const sending = client.send({ jsonrpc: '2.0', id: 1, method: 'a', params });
    params.n = 2;
    expect(atServer).toHaveLength(0);
    await sending;
    await client.send({ jsonrpc: '2.0', method: 'b' });
    await server.send({ jsonrpc: '2.0', id: 1, result: {} });
    await Promise.resolve();

    expect(atServer).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'a', params: { n: 1 } },
      { jsonrpc: '2.0', method: 'b' },
    ]);
    expect((atServer[0] as { params: unknown }).params).not.toBe(params);
    expect(atClient).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('drops what JSON cannot carry', async () => {
    const [a, b] = createInMemoryTransportPair();
    let received: unknown;
    b.onmessage = (m) => (received = m);
    await a.send({ jsonrpc: '2.0', method: 'x', params: { when: new Date(0), skip: undefined } });
    await Promise.resolve();
    expect(received).toEqual({ jsonrpc: '2.0', method: 'x', params: { when: '1970-01-01T00:00:00.000Z' } });
  });

  it('closes both sides once, after delivering what was already sent', async () => {
    const [a, b] = createInMemoryTransportPair();
    const events: string[] = [];
    b.onmessage = () => events.push('message');
    a.onclose = () => events.push('a closed');
    b.onclose = () => events.push('b closed');
    await a.send({ jsonrpc: '2.0', method: 'last' });
    await a.close();
    await b.close();
    expect(events).toEqual(['message', 'a closed', 'b closed']);
    await expect(a.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow('closed');
    await expect(b.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow('closed');
  });

  it('rejects a message JSON cannot encode', async () => {
    const [a] = createInMemoryTransportPair();
    await expect(a.send({ jsonrpc: '2.0', method: 'x', params: { big: 1n } })).rejects.toThrow(TypeError);
  });
});

import { ServerResponse } from 'node:http';
import { SseStream } from './sse.stream';
import { SseReader, TestServer, delay, startServer } from './http-test.fixtures-spec';

describe('SseStream', () => {
  let server: TestServer;
  let stream: SseStream;
  let reader: SseReader;

  async function open(options: ConstructorParameters<typeof SseStream>[1]): Promise<void> {
    let opened!: (s: SseStream) => void;
    const ready = new Promise<SseStream>((resolve) => (opened = resolve));
    server = await startServer((_req, res: ServerResponse) => opened(new SseStream(res, options)));
    reader = await SseReader.open(server.port, { path: '/' });
    stream = await ready;
  }

  afterEach(async () => {
    reader.destroy();
    await server.close();
  });

  it('writes the SSE head and events with ids', async () => {
    await open({ keepAliveMs: 0, headers: { 'Mcp-Session-Id': 'abc' } });
    expect(reader.headers).toMatchObject({
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'mcp-session-id': 'abc',
    });
    expect(stream.send({ jsonrpc: '2.0', method: 'a' }, undefined, 'e1')).toBe(true);
    expect(stream.writeEvent({ event: 'endpoint', data: '/message?sessionId=1' })).toBe(true);
    await reader.until((r) => r.events.length === 2);
    expect(reader.events).toEqual([
      { id: 'e1', event: 'message', data: '{"jsonrpc":"2.0","method":"a"}' },
      { event: 'endpoint', data: '/message?sessionId=1' },
    ]);
  });

  it('sends keep-alive comments while idle', async () => {
    const onKeepAlive = jest.fn();
    await open({ keepAliveMs: 20, onKeepAlive });
    await reader.until((r) => r.comments.length >= 2);
    expect(reader.comments[0]).toBe('ping');
    expect(onKeepAlive).toHaveBeenCalled();
  });

  it('refuses what cannot be encoded instead of throwing', async () => {
    await open({ keepAliveMs: 0 });
    const cyclic: Record<string, unknown> = { jsonrpc: '2.0', method: 'x' };
    cyclic.params = cyclic;
    expect(stream.send(cyclic as never)).toBe(false);
    expect(stream.writeEvent({ id: 'bad\nid', data: 'x' })).toBe(false);
    expect(stream.closed).toBe(false);
  });

  it('never throws once the client is gone, and tells its listeners once', async () => {
    await open({ keepAliveMs: 10 });
    const onClose = jest.fn();
    stream.onClose(onClose);
    reader.destroy();
    await delay(30);
    expect(stream.closed).toBe(true);
    expect(stream.send({ jsonrpc: '2.0', method: 'late' })).toBe(false);
    expect(() => stream.end()).not.toThrow();
    expect(onClose).toHaveBeenCalledTimes(1);
    const late = jest.fn();
    stream.onClose(late);
    expect(late).toHaveBeenCalledTimes(1);
  });

  it('gives a reading client an event larger than maxBufferedBytes, and cuts off one that leaves it unread', async () => {
    await open({ keepAliveMs: 0, maxBufferedBytes: 16 * 1024 });
    const big = { jsonrpc: '2.0' as const, method: 'big', params: { text: 'b'.repeat(1024 * 1024) } };
    expect(stream.send(big, undefined, 'e1')).toBe(true);
    await reader.until((r) => r.events.length === 1);
    expect(reader.events[0].data.length).toBeGreaterThan(1024 * 1024);
    expect(stream.closed).toBe(false);
    // Written without a pause, faster than anyone reads: once more than the bound waits unsent, the next write
    // closes the connection instead of buffering.
    let sent = 0;
    while (stream.send(big) && sent < 64) sent++;
    expect(sent).toBeLessThan(64);
    expect(stream.closed).toBe(true);
  });

  it('honours a client that asks to close the connection: it closes once the stream ends', async () => {
    let socketClosed!: Promise<unknown>;
    let opened!: (s: SseStream) => void;
    const ready = new Promise<SseStream>((resolve) => (opened = resolve));
    server = await startServer((_req, res: ServerResponse) => {
      socketClosed = new Promise((resolve) => res.socket!.once('close', resolve));
      opened(new SseStream(res, { keepAliveMs: 0 }));
    });
    // The reader has no agent: it sends `Connection: close`, which a stream must not answer with `keep-alive`.
    reader = await SseReader.open(server.port, { path: '/' });
    stream = await ready;
    expect(reader.headers.connection).toBe('close');
    stream.end();
    await reader.untilEnded();
    await socketClosed;
  });

  it('ends the response', async () => {
    await open({ keepAliveMs: 0 });
    stream.end();
    await reader.untilEnded();
    expect(stream.send({ jsonrpc: '2.0', method: 'late' })).toBe(false);
  });
});

import { McpHttpOptions } from '../../interfaces/mcp-module-options.interface';
import { resolveHttpOptions } from './http-options';
import { LegacySseHandler } from './legacy-sse.handler';
import { FakeEndpoint, SseReader, TestServer, delay, request, startServer } from './http-test.fixtures-spec';

describe('LegacySseHandler', () => {
  let endpoint: FakeEndpoint;
  let server: TestServer;
  let port: number;
  const readers: SseReader[] = [];

  async function serve(options: McpHttpOptions = {}): Promise<void> {
    endpoint = new FakeEndpoint();
    const handler = new LegacySseHandler(endpoint, resolveHttpOptions(options));
    server = await startServer((req, res) => void handler.handle(req, res));
    port = server.port;
  }

  async function connect(path = '/sse'): Promise<{ reader: SseReader; messageUrl: string; sessionId: string }> {
    const reader = await SseReader.open(port, { path, headers: { accept: 'text/event-stream' } });
    readers.push(reader);
    await reader.until((r) => r.events.length === 1);
    const messageUrl = reader.events[0].data;
    return { reader, messageUrl, sessionId: new URL(messageUrl, 'http://x').searchParams.get('sessionId')! };
  }

  const send = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    request(port, { path, body, headers: { 'content-type': 'application/json', ...headers } });

  beforeEach(() => serve());

  afterEach(async () => {
    readers.splice(0).forEach((reader) => reader.destroy());
    await server.close();
    endpoint.sessions.clear();
  });

  it('opens a stream whose first event names the message endpoint of a new session', async () => {
    const { reader, messageUrl, sessionId } = await connect();
    expect(reader.status).toBe(200);
    expect(reader.headers['content-type']).toBe('text/event-stream');
    expect(reader.events[0].event).toBe('endpoint');
    expect(messageUrl).toBe(`/message?sessionId=${sessionId}`);
    const session = endpoint.sessions.get(sessionId)!;
    expect(session.outbound).toBeDefined();
  });

  it('answers POSTs 202 and sends the responses as message events on the stream', async () => {
    const { reader, messageUrl } = await connect();
    const res = await send(messageUrl, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05' },
    });
    expect(res.status).toBe(202);
    await reader.until((r) => r.messages.length === 1);
    expect(reader.events[1].event).toBe('message');
    expect(reader.messages[0]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2024-11-05' } });

    await send(messageUrl, { jsonrpc: '2.0', id: 2, method: 'slow' });
    await reader.until((r) => r.messages.length === 4);
    expect(reader.messages.slice(1).map((message) => message.params?.data ?? message.result)).toEqual([
      'one',
      'two',
      { done: true },
    ]);
    expect(endpoint.received.at(-1)!.origin.facts.kind).toBe('sse');
  });

  it('dispatches every message of a batch', async () => {
    const { reader, messageUrl } = await connect();
    await send(messageUrl, [
      { jsonrpc: '2.0', id: 1, method: 'echo' },
      { jsonrpc: '2.0', id: 2, method: 'echo' },
    ]);
    await reader.until((r) => r.messages.length === 2);
    expect(reader.messages.map((message) => message.id).sort()).toEqual([1, 2]);
  });

  it('refuses bad message POSTs', async () => {
    const { messageUrl } = await connect();
    expect((await send('/message', {})).status).toBe(400);
    const unknown = await send('/message?sessionId=nope', {});
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe(-32001);
    expect((await send(messageUrl, {}, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await send(messageUrl, '{oops')).json.error.code).toBe(-32700);
    expect((await send(messageUrl, {}, { host: 'evil.example.com' })).status).toBe(403);
    expect((await send(messageUrl, {}, { origin: 'https://evil.example.com' })).status).toBe(403);
  });

  it('answers wrong methods 405 and other paths 404', async () => {
    const get = await request(port, { method: 'GET', path: '/message' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect((await request(port, { method: 'POST', path: '/sse', body: {} })).headers.allow).toBe('GET');
    expect((await request(port, { method: 'GET', path: '/elsewhere' })).status).toBe(404);
    expect((await request(port, { method: 'GET', path: '/sse', headers: { accept: 'application/json' } })).status).toBe(
      406,
    );
  });

  it('ends the session when the stream closes', async () => {
    const { reader, sessionId } = await connect();
    const session = endpoint.sessions.get(sessionId)!;
    reader.destroy();
    await delay(30);
    expect(session.closed).toBe(true);
    expect(endpoint.sessions.size).toBe(0);
    expect((await send(`/message?sessionId=${sessionId}`, {})).status).toBe(404);
  });

  it('ends the stream when the session ends', async () => {
    const { reader, sessionId } = await connect();
    endpoint.sessions.delete(sessionId);
    await reader.untilEnded();
  });

  it('uses the configured paths', async () => {
    await server.close();
    await serve({ legacySse: { ssePath: '/events', messagePath: '/rpc' } });
    const { messageUrl } = await connect('/events');
    expect(messageUrl.startsWith('/rpc?sessionId=')).toBe(true);
    expect((await send(messageUrl, { jsonrpc: '2.0', id: 1, method: 'echo' })).status).toBe(202);
  });
});

import { IncomingMessage, ServerResponse } from 'node:http';
import { SseClientTransport } from '../../libs/client/src/transports/sse-client.transport';
import { isSyntheticResponse } from '../../libs/client/src/transports/synthetic-response';
import {
  NestServer,
  RawServer,
  Recorder,
  initializeRequest,
  initializedNotification,
  json,
  sseEvent,
  sseHead,
  startNestServer,
  startRawServer,
  waitFor,
} from './transport-test.fixtures';

const ok = (id: unknown, result: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, result });

describe('SseClientTransport (2024-11-05 HTTP+SSE)', () => {
  const transports: SseClientTransport[] = [];
  const servers: RawServer[] = [];
  const client = (url: string, headers?: Record<string, string>, maxMessageBytes?: number) => {
    const transport = new SseClientTransport({ url, headers }, { maxMessageBytes });
    transports.push(transport);
    return transport;
  };
  const raw = async (handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) => {
    const server = await startRawServer(handler, '/sse');
    servers.push(server);
    return server;
  };

  afterEach(async () => {
    await Promise.all(transports.splice(0).map((transport) => transport.close()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  describe('against this project’s server (McpModule)', () => {
    let server: NestServer;

    beforeAll(async () => {
      server = await startNestServer();
    });

    afterAll(async () => {
      await server.close();
    });

    it('opens the stream, POSTs to the endpoint it names, and receives responses and progress on the stream', async () => {
      const transport = client(server.sseUrl);
      const recorder = new Recorder(transport);
      await transport.start();
      expect(transport.origin).toBe(new URL(server.sseUrl).origin);
      expect(transport.messageEndpoint).toMatch(new RegExp(`^${transport.origin}/message\\?sessionId=`));

      await transport.send(initializeRequest(0, '2024-11-05'));
      expect((await recorder.response(0)).result).toMatchObject({
        protocolVersion: '2024-11-05',
        serverInfo: { name: 't' },
      });
      transport.useRevision('2024-11-05');
      await transport.send(initializedNotification);
      await transport.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'count', arguments: { steps: 2 }, _meta: { progressToken: 7 } },
      });
      expect((await recorder.response(1)).result.content).toEqual([{ type: 'text', text: 'Counted to 2' }]);
      expect(recorder.notifications('notifications/progress').map((n) => n.params.progress)).toEqual([1, 2]);
      expect(recorder.errors).toEqual([]);

      await transport.close();
      expect(recorder.closes).toBe(1);
      await expect(transport.send(initializedNotification)).rejects.toThrow('Transport is closed');
    });
  });

  it('resolves a relative endpoint against the stream URL and sends the configured headers', async () => {
    let stream: ServerResponse | undefined;
    const server = await raw((req, res, body) => {
      if (req.method === 'GET') {
        sseHead(res);
        res.write(sseEvent('messages?session=1', { event: 'endpoint' }));
        stream = res;
        return;
      }
      res.writeHead(202).end();
      const message = JSON.parse(body);
      stream?.write(sseEvent(ok(message.id, { echoed: message.method }), { event: 'message' }));
    });
    const transport = client(server.url, { Authorization: 'Bearer t' });
    const recorder = new Recorder(transport);
    await transport.start();
    expect(transport.messageEndpoint).toBe(`http://127.0.0.1:${server.port}/messages?session=1`);
    transport.useRevision('2024-11-05');
    await transport.send({ jsonrpc: '2.0', id: 'a', method: 'ping' });
    expect(await recorder.response('a')).toEqual(ok('a', { echoed: 'ping' }));
    const [get, post] = server.requests;
    expect(get.headers).toMatchObject({ accept: 'text/event-stream', authorization: 'Bearer t' });
    expect(post.url).toBe('/messages?session=1');
    expect(post.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: 'Bearer t',
      'mcp-protocol-version': '2024-11-05',
    });
  });

  it('refuses an endpoint on another origin', async () => {
    const server = await raw((_req, res) => {
      sseHead(res);
      res.write(sseEvent('http://evil.example/message', { event: 'endpoint' }));
    });
    const transport = client(server.url);
    const recorder = new Recorder(transport);
    await expect(transport.start()).rejects.toThrow(
      'The server named a message endpoint on another origin (http://evil.example); refused',
    );
    await expect(transport.send(initializedNotification)).rejects.toThrow('Transport is closed');
    expect(recorder.closes).toBe(0);
  });

  it('rejects start when the stream ends before naming the endpoint, or is refused', async () => {
    const ended = await raw((_req, res) => {
      sseHead(res);
      res.end(sseEvent({ jsonrpc: '2.0', method: 'x' }));
    });
    await expect(client(ended.url).start()).rejects.toThrow('The SSE stream ended before naming the message endpoint');
    const refused = await raw((_req, res) => json(res, 404, { error: 'nope' }));
    await expect(client(refused.url).start()).rejects.toThrow('The server refused the SSE stream: HTTP 404');
  });

  it('closes, firing onclose once, when the server ends the stream', async () => {
    let stream: ServerResponse | undefined;
    const server = await raw((_req, res) => {
      sseHead(res);
      res.write(sseEvent('/message', { event: 'endpoint' }));
      stream = res;
    });
    const transport = client(server.url);
    const recorder = new Recorder(transport);
    await transport.start();
    stream?.end();
    await waitFor(() => recorder.closes === 1);
    await transport.close();
    expect(recorder.closes).toBe(1);
  });

  it('answers a request the message endpoint refuses, and rejects a refused notification', async () => {
    const server = await raw((req, res, body) => {
      if (req.method === 'GET') {
        sseHead(res);
        return void res.write(sseEvent('/message', { event: 'endpoint' }));
      }
      const message = JSON.parse(body);
      if (message.id === 2)
        return json(res, 404, { jsonrpc: '2.0', id: 2, error: { code: -32001, message: 'Session not found' } });
      res.writeHead(500).end();
    });
    const transport = client(server.url);
    const recorder = new Recorder(transport);
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const synthetic = await recorder.response(1);
    expect(synthetic).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'HTTP 500 Internal Server Error', data: { status: 500 } },
    });
    expect(isSyntheticResponse(synthetic)).toBe(true);
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await recorder.response(2)).error).toEqual({ code: -32001, message: 'Session not found' });
    await expect(transport.send(initializedNotification)).rejects.toThrow('The server refused the message: HTTP 500');
  });

  it('refuses an event over the size limit: reports it and closes', async () => {
    const server = await raw((_req, res) => {
      sseHead(res);
      res.write(sseEvent('/message', { event: 'endpoint' }));
      res.write(sseEvent(ok(1, { s: 'a'.repeat(2_000) }), { event: 'message' }));
    });
    const transport = client(server.url, undefined, 1_000);
    const recorder = new Recorder(transport);
    await transport.start();
    await waitFor(() => recorder.closes === 1);
    expect(recorder.messages).toEqual([]);
    expect(recorder.errors.map((e) => e.message)).toEqual(['Message from the server exceeds 1000 bytes; dropped']);
  });
});

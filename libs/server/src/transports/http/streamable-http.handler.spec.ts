import http from 'node:http';
import { McpHttpOptions } from '../../interfaces/mcp-module-options.interface';
import { InMemoryEventStore, InMemoryEventStoreOptions } from './event.store';
import { resolveHttpOptions } from './http-options';
import { StreamableHttpHandler } from './streamable-http.handler';
import {
  FakeEndpoint,
  POST_HEADERS,
  SseReader,
  TestServer,
  delay,
  initialize,
  post,
  request,
  startServer,
} from './http-test.fixtures-spec';

describe('StreamableHttpHandler', () => {
  let endpoint: FakeEndpoint;
  let store: InMemoryEventStore;
  let server: TestServer;
  let port: number;
  const readers: SseReader[] = [];

  async function serve(
    options: McpHttpOptions = {},
    parsedBody?: unknown,
    storeOptions: InMemoryEventStoreOptions = {},
  ): Promise<void> {
    endpoint = new FakeEndpoint();
    store = new InMemoryEventStore(storeOptions);
    const handler = new StreamableHttpHandler(endpoint, resolveHttpOptions(options), store);
    server = await startServer((req, res) => void handler.handle(req, res, parsedBody));
    port = server.port;
  }

  async function sse(options: Parameters<typeof SseReader.open>[1]): Promise<SseReader> {
    const reader = await SseReader.open(port, options);
    readers.push(reader);
    return reader;
  }

  const get = (sessionId: string, headers: Record<string, string> = {}) =>
    sse({ headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, ...headers } });

  const postSse = (sessionId: string, body: unknown) =>
    sse({ method: 'POST', headers: { ...POST_HEADERS, 'mcp-session-id': sessionId }, body });

  afterEach(async () => {
    readers.splice(0).forEach((reader) => reader.destroy());
    await server?.close();
    endpoint?.sessions.clear();
  });

  describe('Host and Origin checks', () => {
    beforeEach(() => serve());

    it('refuses a foreign Host with 403 and a JSON-RPC error', async () => {
      const res = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { host: 'evil.example.com' });
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Host') } });
    });

    it('checks the Host before the method', async () => {
      const res = await request(port, { method: 'PUT', headers: { host: 'evil.example.com:80' } });
      expect(res.status).toBe(403);
    });

    it('refuses a foreign Origin with 403', async () => {
      const res = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { origin: 'http://evil.example.com' });
      expect(res.status).toBe(403);
      expect(res.json.error.message).toContain('Origin');
    });

    it('accepts loopback Host and Origin values with any port', async () => {
      const res = await post(
        port,
        { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
        { host: 'LOCALHOST:1234', origin: 'http://[::1]:5173' },
      );
      expect(res.status).toBe(200);
    });

    it('can be turned off', async () => {
      await server.close();
      await serve({ allowedHosts: false, allowedOrigins: false });
      const res = await post(
        port,
        { jsonrpc: '2.0', id: 0, method: 'initialize' },
        { host: 'mcp.example.com', origin: 'https://x.example' },
      );
      expect(res.status).toBe(200);
    });
  });

  describe('request validation', () => {
    beforeEach(() => serve({ bodyLimit: 1024 }));

    it('answers other methods 405 with Allow', async () => {
      const res = await request(port, { method: 'PUT', headers: POST_HEADERS, body: '{}' });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, POST, DELETE');
      expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Method Not Allowed' } });
    });

    it('answers 415 to a body that is not JSON', async () => {
      const res = await request(port, { headers: { ...POST_HEADERS, 'content-type': 'text/plain' }, body: '{}' });
      expect(res.status).toBe(415);
      expect(res.json.error.code).toBe(-32000);
    });

    it('accepts a JSON content type with parameters', async () => {
      const res = await post(
        port,
        { jsonrpc: '2.0', id: 0, method: 'initialize' },
        { 'content-type': 'Application/JSON; charset=utf-8' },
      );
      expect(res.status).toBe(200);
    });

    it('answers 406 unless Accept lists both JSON and SSE', async () => {
      expect((await post(port, {}, { accept: 'application/json' })).status).toBe(406);
      expect((await post(port, {}, { accept: 'text/event-stream' })).status).toBe(406);
      expect((await post(port, {}, { accept: 'application/json, text/event-stream;q=0' })).status).toBe(406);
      const wildcard = await post(port, { jsonrpc: '2.0', id: 0, method: 'initialize' }, { accept: '*/*' });
      expect(wildcard.status).toBe(200);
    });

    it('answers 413 from the declared length, before reading', async () => {
      const res = await request(port, { headers: { ...POST_HEADERS, 'content-length': 5000 }, body: 'x'.repeat(5000) });
      expect(res.status).toBe(413);
      expect(res.json.error.message).toContain('1024');
    });

    it('answers 413 as soon as a chunked body passes the limit', async () => {
      const res = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: POST_HEADERS, agent: false },
          (r) => {
            r.resume();
            resolve(r.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write('x'.repeat(800));
        setTimeout(() => req.write('x'.repeat(800)), 20);
        // The rest is never sent: the answer must not wait for the end of the body.
      });
      expect(res).toBe(413);
    });

    it('answers 400 with -32700 to invalid JSON', async () => {
      const res = await post(port, '{"jsonrpc":');
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: expect.any(String) } });
    });

    it('answers 400 to an invalid JSON-RPC message and to an empty batch', async () => {
      const invalid = await post(port, { hello: 'world' });
      expect(invalid.status).toBe(400);
      expect(invalid.json.error.code).toBe(-32600);
      const empty = await post(port, []);
      expect(empty.status).toBe(400);
      expect(empty.json.error.code).toBe(-32600);
    });

    it('answers 400 to an unknown MCP-Protocol-Version and accepts a known or absent one', async () => {
      const bad = await post(
        port,
        { jsonrpc: '2.0', id: 0, method: 'initialize' },
        { 'mcp-protocol-version': '1999-01-01' },
      );
      expect(bad.status).toBe(400);
      expect(bad.json.error).toEqual({
        code: -32000,
        message: expect.stringContaining('Unsupported protocol version'),
      });
      const known = await post(
        port,
        { jsonrpc: '2.0', id: 0, method: 'initialize' },
        { 'mcp-protocol-version': '2025-06-18' },
      );
      expect(known.status).toBe(200);
    });

    it('survives a client that disconnects mid-body', async () => {
      await new Promise<void>((resolve) => {
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/mcp',
          headers: { ...POST_HEADERS, 'content-length': 500 },
          agent: false,
        });
        req.on('error', () => undefined);
        req.write('{"jsonrpc":');
        setTimeout(() => (req.destroy(), resolve()), 20);
      });
      const res = await post(port, { jsonrpc: '2.0', id: 0, method: 'initialize' });
      expect(res.status).toBe(200);
    });
  });

  describe('sessions', () => {
    beforeEach(() => serve());

    it('issues a session id on a successful initialize and keeps the session', async () => {
      const res = await post(port, {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18' },
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const sessionId = res.headers['mcp-session-id'] as string;
      expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(res.json.result.protocolVersion).toBe('2025-06-18');
      expect(endpoint.sessions.get(sessionId)?.revision).toBe('2025-06-18');
    });

    it('discards the session of a failed initialize and issues no id', async () => {
      const res = await post(port, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { fail: true } });
      expect(res.status).toBe(200);
      expect(res.json.error.code).toBe(-32602);
      expect(res.headers['mcp-session-id']).toBeUndefined();
      expect(endpoint.sessions.size).toBe(0);
      expect(endpoint.received[0].origin.session.closed).toBe(true);
    });

    it('requires the session header on other requests (400), echoing the request id', async () => {
      const res = await post(port, { jsonrpc: '2.0', id: 7, method: 'echo' });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' },
      });
    });

    it('answers 404 with -32001 to an unknown session', async () => {
      const res = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { 'mcp-session-id': 'nope' });
      expect(res.status).toBe(404);
      expect(res.json.error).toEqual({ code: -32001, message: 'Session not found' });
    });

    it('refuses initialize on an existing session with 400 and -32600', async () => {
      const sessionId = await initialize(port);
      const res = await post(port, { jsonrpc: '2.0', id: 1, method: 'initialize' }, { 'mcp-session-id': sessionId });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe(-32600);
    });

    it('refuses initialize inside a batch', async () => {
      const res = await post(port, [{ jsonrpc: '2.0', id: 1, method: 'initialize' }]);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe(-32600);
    });

    it('serves requests on the session, touching it', async () => {
      const sessionId = await initialize(port);
      const session = endpoint.sessions.get(sessionId)!;
      session.lastActivity = 0;
      const res = await post(
        port,
        { jsonrpc: '2.0', id: 'a', method: 'echo', params: { x: 1 } },
        { 'mcp-session-id': sessionId },
      );
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ jsonrpc: '2.0', id: 'a', result: { echo: { x: 1 } } });
      expect(session.lastActivity).toBeGreaterThan(0);
      const { origin } = endpoint.received.at(-1)!;
      expect(origin).toMatchObject({ session, facts: { kind: 'streamable-http' } });
      expect(origin.facts.headers['mcp-session-id']).toBe(sessionId);
      expect(origin.facts.raw).toBeDefined();
    });

    it('answers notifications and responses 202 with no body', async () => {
      const sessionId = await initialize(port, '2025-03-26'); // a revision with batches
      const res = await post(
        port,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { 'mcp-session-id': sessionId },
      );
      expect(res.status).toBe(202);
      expect(res.text).toBe('');
      const both = await post(
        port,
        [
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
          { jsonrpc: '2.0', id: 's1', result: {} },
        ],
        { 'mcp-session-id': sessionId },
      );
      expect(both.status).toBe(202);
      expect(endpoint.received.map((entry) => entry.message.method ?? 'response')).toEqual([
        'initialize',
        'notifications/initialized',
        'notifications/cancelled',
        'response',
      ]);
    });

    it('answers a batch with an array of responses', async () => {
      const sessionId = await initialize(port, '2025-03-26');
      const res = await post(
        port,
        [
          { jsonrpc: '2.0', id: 1, method: 'echo', params: { n: 1 } },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'echo', params: { n: 2 } },
          { bad: true },
        ],
        { 'mcp-session-id': sessionId },
      );
      expect(res.status).toBe(200);
      expect(res.json).toEqual([
        { jsonrpc: '2.0', id: 1, result: { echo: { n: 1 } } },
        { jsonrpc: '2.0', id: 2, result: { echo: { n: 2 } } },
        { jsonrpc: '2.0', error: { code: -32600, message: 'jsonrpc must be "2.0"' } },
      ]);
    });

    it('ends a session on DELETE (204), after which it is 404', async () => {
      const sessionId = await initialize(port);
      const session = endpoint.sessions.get(sessionId)!;
      const res = await request(port, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      expect(res.status).toBe(204);
      expect(session.closed).toBe(true);
      expect(
        (await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { 'mcp-session-id': sessionId })).status,
      ).toBe(404);
      expect((await request(port, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } })).status).toBe(404);
      expect((await request(port, { method: 'DELETE' })).status).toBe(400);
    });
  });

  describe('SSE replies to POST', () => {
    beforeEach(() => serve());

    it('switches to SSE when the request streams, sending the response last', async () => {
      const sessionId = await initialize(port, '2025-06-18');
      const reader = await postSse(sessionId, { jsonrpc: '2.0', id: 5, method: 'slow' });
      await reader.untilEnded();
      expect(reader.status).toBe(200);
      expect(reader.headers).toMatchObject({
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
      });
      // 2025-06-18: no priming event, every event has an id.
      expect(reader.events.every((event) => event.id && event.data)).toBe(true);
      expect(reader.messages).toEqual([
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'one' } },
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'two' } },
        { jsonrpc: '2.0', id: 5, result: { done: true } },
      ]);
      expect(new Set(reader.events.map((event) => event.id)).size).toBe(3);
    });

    it('opens 2025-11-25 streams with a priming event: an id, a retry and empty data', async () => {
      const sessionId = await initialize(port, '2025-11-25');
      const reader = await postSse(sessionId, { jsonrpc: '2.0', id: 5, method: 'slow' });
      await reader.untilEnded();
      expect(reader.events[0]).toEqual({ id: expect.any(String), retry: 1000, data: '' });
      expect(reader.messages.at(-1)).toEqual({ jsonrpc: '2.0', id: 5, result: { done: true } });
    });

    it('keeps plain JSON when nothing is streamed', async () => {
      const sessionId = await initialize(port);
      const res = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { 'mcp-session-id': sessionId });
      expect(res.headers['content-type']).toBe('application/json');
    });

    it('names the new session in the SSE head of an initialize that streams', async () => {
      const reader = await sse({
        method: 'POST',
        headers: POST_HEADERS,
        body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', stream: true } },
      });
      await reader.untilEnded();
      const sessionId = reader.headers['mcp-session-id'] as string;
      expect(endpoint.sessions.get(sessionId)).toBeDefined();
      expect(reader.messages.map((message) => message.method ?? message.result.protocolVersion)).toEqual([
        'notifications/message',
        '2025-06-18',
      ]);
    });
  });

  describe('resumption (Last-Event-ID)', () => {
    beforeEach(() => serve());

    it('does not abort a request whose POST stream dropped; GET with Last-Event-ID gets the rest', async () => {
      const sessionId = await initialize(port);
      const reader = await postSse(sessionId, { jsonrpc: '2.0', id: 9, method: 'wait' });
      await reader.until((r) => r.messages.length === 1);
      const lastEventId = reader.events.at(-1)!.id!;
      reader.destroy();
      await delay(30);

      endpoint.release(9);
      await delay(30);
      const origin = endpoint.received.at(-1)!.origin;
      expect(origin.session.closed).toBe(false);

      const resumed = await get(sessionId, { 'last-event-id': lastEventId });
      await resumed.untilEnded();
      expect(resumed.status).toBe(200);
      expect(resumed.messages).toEqual([
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after' } },
        { jsonrpc: '2.0', id: 9, result: { waited: true } },
      ]);
    });

    it('replays from the priming event and keeps a resumed stream open until the response', async () => {
      const sessionId = await initialize(port);
      const reader = await postSse(sessionId, { jsonrpc: '2.0', id: 3, method: 'wait' });
      await reader.until((r) => r.events.length >= 2);
      const primingId = reader.events[0].id!;
      reader.destroy();
      await delay(30);

      const resumed = await get(sessionId, { 'last-event-id': primingId });
      await resumed.until((r) => r.messages.length === 1);
      expect(resumed.messages[0].params.data).toBe('before');
      expect(resumed.ended).toBe(false);
      endpoint.release(3);
      await resumed.untilEnded();
      expect(resumed.messages.map((message) => message.params?.data ?? message.result)).toEqual([
        'before',
        'after',
        { waited: true },
      ]);
    });

    it('answers 204 when the stream ended and everything was delivered', async () => {
      const sessionId = await initialize(port);
      const reader = await postSse(sessionId, { jsonrpc: '2.0', id: 4, method: 'slow' });
      await reader.untilEnded();
      const res = await request(port, {
        method: 'GET',
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': sessionId,
          'last-event-id': reader.events.at(-1)!.id!,
        },
      });
      expect(res.status).toBe(204);
      // Delivered whole: the store no longer holds its events, only its end.
      expect(store.replayAfter(sessionId, reader.events[0].id!)).toBeUndefined();
    });

    it('keeps the recorded events of a session only closed here (idle, shutdown); a DELETE drops them', async () => {
      const closedHere = await initialize(port);
      const deleted = await initialize(port);
      const recorded: Record<string, string> = {};
      for (const sessionId of [closedHere, deleted]) {
        const reader = await postSse(sessionId, { jsonrpc: '2.0', id: 4, method: 'slow' });
        await reader.untilEnded();
        recorded[sessionId] = reader.events.at(-1)!.id!; // the last event: delivered whole, the stream keeps its end
      }
      // Another instance may serve it still: its streams stay resumable.
      endpoint.sessions.get(closedHere)!.close();
      await new Promise((resolve) => setImmediate(resolve)); // a deletion would have run by now
      expect(store.replayAfter(closedHere, recorded[closedHere])).toMatchObject({ events: [], ended: true });
      // Ended for good: its streams go too.
      expect((await request(port, { method: 'DELETE', headers: { 'mcp-session-id': deleted } })).status).toBe(204);
      await new Promise((resolve) => setImmediate(resolve));
      expect(store.replayAfter(deleted, recorded[deleted])).toBeUndefined();
    });

    it("never replays another session's events", async () => {
      const owner = await initialize(port);
      const reader = await postSse(owner, { jsonrpc: '2.0', id: 4, method: 'slow' });
      await reader.untilEnded();
      const stranger = await initialize(port);
      const resumed = await get(stranger, { 'last-event-id': reader.events[0].id! });
      expect(resumed.status).toBe(200);
      await delay(50);
      expect(resumed.events.filter((event) => event.data !== '')).toEqual([]);
      // It became the stranger's own standalone stream instead.
      expect(endpoint.sessions.get(stranger)!.outbound).toBeDefined();
    });

    it('lets the server close the connection mid-request (SEP-1699 polling); the client resumes for the response', async () => {
      const sessionId = await initialize(port);
      const reader = await postSse(sessionId, { jsonrpc: '2.0', id: 11, method: 'poll' });
      await reader.untilEnded();
      expect(reader.messages).toEqual([]);
      const last = reader.events.at(-1)!;
      expect(last).toEqual({ id: expect.any(String), retry: 1000, data: '' });

      endpoint.release(11);
      const resumed = await get(sessionId, { 'last-event-id': last.id! });
      await resumed.untilEnded();
      expect(resumed.messages).toEqual([{ jsonrpc: '2.0', id: 11, result: { polled: true } }]);
    });
  });

  describe('resumption past what the event store kept', () => {
    it('treats a Last-Event-ID whose successors were dropped as unknown: the GET opens the standalone stream', async () => {
      // Every log line of 'wait' is larger than the stream's budget: sent live, never kept.
      await serve({}, undefined, { maxBytesPerStream: 40 });
      const sessionId = await initialize(port);
      const reader = await postSse(sessionId, { jsonrpc: '2.0', id: 21, method: 'wait' });
      await reader.until((r) => r.messages.length === 1);
      const primingId = reader.events[0].id!;
      reader.destroy();
      await delay(30);

      const resumed = await get(sessionId, { 'last-event-id': primingId });
      expect(resumed.status).toBe(200);
      await delay(50);
      // Nothing replayed (a replay would have skipped the dropped line); it is the session's standalone stream now.
      expect(resumed.messages).toEqual([]);
      expect(endpoint.sessions.get(sessionId)!.outbound).toBeDefined();
      endpoint.release(21);
    });
  });

  describe('GET standalone stream', () => {
    beforeEach(() => serve({ keepAliveMs: 40 }));

    it('validates Accept and the session', async () => {
      const sessionId = await initialize(port);
      expect(
        (await request(port, { method: 'GET', headers: { accept: 'application/json', 'mcp-session-id': sessionId } }))
          .status,
      ).toBe(406);
      expect((await request(port, { method: 'GET', headers: { accept: 'text/event-stream' } })).status).toBe(400);
      expect(
        (await request(port, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': 'x' } }))
          .status,
      ).toBe(404);
      const version = await request(port, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': 'draft' },
      });
      expect(version.status).toBe(400);
    });

    it('becomes session.outbound, carries notifications with ids and keep-alives, and allows one at a time', async () => {
      const sessionId = await initialize(port);
      const session = endpoint.sessions.get(sessionId)!;
      const stream = await get(sessionId);
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream');
      await stream.until((r) => r.events.length === 1);
      expect(stream.events[0]).toEqual({ id: expect.any(String), retry: 1000, data: '' });

      expect(session.notify('notifications/tools/list_changed')).toBe(true);
      await stream.until((r) => r.messages.length === 1);
      expect(stream.messages[0]).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      expect(stream.events[1].id).toBeDefined();

      const second = await request(port, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId },
      });
      expect(second.status).toBe(409);
      expect(second.json.error.code).toBe(-32000);

      await stream.until((r) => r.comments.includes('ping'));

      stream.destroy();
      await delay(30);
      expect(session.outbound).toBeUndefined();
      // The session keeps what it sends meanwhile for the next GET stream.
      session.notify('notifications/kept');
      const next = await get(sessionId);
      await next.until((r) => r.messages.length === 1);
      expect(next.events[0].data).toBe('');
      expect(next.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/kept' }]);
    });

    it('resumes the standalone stream with Last-Event-ID, replacing a connection the server still holds', async () => {
      const sessionId = await initialize(port);
      const session = endpoint.sessions.get(sessionId)!;
      const first = await get(sessionId);
      await first.until((r) => r.events.length === 1);
      session.notify('notifications/a');
      session.notify('notifications/b');
      await first.until((r) => r.messages.length === 2);

      const resumed = await get(sessionId, { 'last-event-id': first.events[1].id! });
      await resumed.until((r) => r.messages.length === 1);
      expect(resumed.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/b' }]);
      await first.untilEnded();
      session.notify('notifications/c');
      await resumed.until((r) => r.messages.length === 2);
      expect(resumed.messages[1].method).toBe('notifications/c');
    });

    it('ends the stream when the session ends', async () => {
      const sessionId = await initialize(port);
      const stream = await get(sessionId);
      await stream.until((r) => r.events.length === 1);
      await request(port, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      await stream.untilEnded();
    });
  });

  describe('stateless mode', () => {
    beforeEach(() => serve({ sessionMode: 'stateless' }));

    it('serves every POST on a throw-away session and issues no session id', async () => {
      const init = await post(port, {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18' },
      });
      expect(init.status).toBe(200);
      expect(init.headers['mcp-session-id']).toBeUndefined();

      const res = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { 'mcp-protocol-version': '2025-06-18' });
      expect(res.json.result).toEqual({ echo: {} });
      const { session } = endpoint.received.at(-1)!.origin;
      expect(session).toMatchObject({ persistent: false, initialized: true, revision: '2025-06-18', closed: true });
      expect(endpoint.sessions.size).toBe(0);

      await post(port, { jsonrpc: '2.0', id: 2, method: 'echo' });
      expect(endpoint.received.at(-1)!.origin.session.revision).toBe('2025-03-26');
    });

    it('streams SSE without event ids', async () => {
      const reader = await sse({
        method: 'POST',
        headers: POST_HEADERS,
        body: { jsonrpc: '2.0', id: 1, method: 'slow' },
      });
      await reader.untilEnded();
      expect(reader.messages).toHaveLength(3);
      expect(reader.events.every((event) => event.id === undefined)).toBe(true);
    });

    it('cancels the request when the client disconnects', async () => {
      const reader = await sse({
        method: 'POST',
        headers: POST_HEADERS,
        body: { jsonrpc: '2.0', id: 1, method: 'wait' },
      });
      await reader.until((r) => r.messages.length === 1);
      reader.destroy();
      await delay(30);
      expect(endpoint.received.at(-1)!.origin.session.closed).toBe(true);
    });

    it('answers GET and DELETE 405 with Allow: POST', async () => {
      const got = await request(port, { method: 'GET', headers: { accept: 'text/event-stream' } });
      expect(got.status).toBe(405);
      expect(got.headers.allow).toBe('POST');
      const deleted = await request(port, { method: 'DELETE' });
      expect(deleted.status).toBe(405);
      expect(deleted.json.error.code).toBe(-32000);
    });
  });

  describe('modern era on the same endpoint', () => {
    beforeEach(() => serve());

    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };

    it('serves a request that names its revision in _meta without a session', async () => {
      const res = await post(
        port,
        { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } },
        { 'mcp-protocol-version': '2026-07-28' },
      );
      expect(res.status).toBe(200);
      expect(res.json.result.supportedVersions).toEqual(['2026-07-28']);
      expect(res.headers['mcp-session-id']).toBeUndefined();
      expect(endpoint.sessions.size).toBe(0);
    });

    it('maps method-not-found to 404 and leaves version checks to the dispatcher', async () => {
      const res = await post(
        port,
        { jsonrpc: '2.0', id: 2, method: 'initialize', params: { _meta: meta } },
        { 'mcp-protocol-version': 'v999' },
      );
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } });
    });
  });

  it('uses a body an Express body parser already read', async () => {
    await serve({}, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18' } });
    const res = await request(port, { headers: POST_HEADERS });
    expect(res.status).toBe(200);
    expect(res.json.result.protocolVersion).toBe('2025-06-18');
  });
});

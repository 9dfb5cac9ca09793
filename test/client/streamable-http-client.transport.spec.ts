import { IncomingMessage, ServerResponse } from 'node:http';
import { MessageTooLargeError, SessionExpiredError } from '../../libs/client/src/transports/client-transport.errors';
import {
  StreamableHttpClientOptions,
  StreamableHttpClientTransport,
} from '../../libs/client/src/transports/streamable-http-client.transport';
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

const FAST_RECONNECT: StreamableHttpClientOptions['reconnect'] = { initialDelayMs: 10, maxDelayMs: 100, maxRetries: 3 };
const request = (id: number, method = 'tools/list', params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0' as const,
  id,
  method,
  params,
});
const ok = (id: unknown, result: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, result });
const idOf = (body: string) => (JSON.parse(body) as { id?: number }).id;

describe('StreamableHttpClientTransport', () => {
  const transports: StreamableHttpClientTransport[] = [];
  const servers: RawServer[] = [];
  const client = (url: string, options: StreamableHttpClientOptions = {}, headers?: Record<string, string>) => {
    const transport = new StreamableHttpClientTransport({ url, headers }, { reconnect: FAST_RECONNECT, ...options });
    transports.push(transport);
    return transport;
  };
  const raw = async (handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) => {
    const server = await startRawServer(handler);
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

    async function connect(): Promise<{ transport: StreamableHttpClientTransport; recorder: Recorder }> {
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.start();
      await transport.send(initializeRequest(0));
      const init = await recorder.response(0);
      transport.useRevision(init.result.protocolVersion);
      await transport.send(initializedNotification);
      return { transport, recorder };
    }

    it('initializes a session and calls a tool whose progress streams as SSE', async () => {
      const { transport, recorder } = await connect();
      expect(transport.origin).toBe(new URL(server.url).origin);
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(recorder.messages[0].result).toMatchObject({
        protocolVersion: '2025-11-25',
        serverInfo: { name: 't', version: '1' },
      });

      await transport.send(
        request(1, 'tools/call', { name: 'count', arguments: { steps: 3 }, _meta: { progressToken: 'tok' } }),
      );
      expect((await recorder.response(1)).result.content).toEqual([{ type: 'text', text: 'Counted to 3' }]);
      const progress = recorder.notifications('notifications/progress');
      expect(progress.map((n) => n.params)).toEqual(
        [1, 2, 3].map((p) => ({ progressToken: 'tok', progress: p, total: 3 })),
      );
      // Everything on the reply stream is tied to the request it answers.
      expect(recorder.related.slice(-4)).toEqual([1, 1, 1, 1]);
      expect(recorder.errors).toEqual([]);
    });

    it('resumes a reply stream the server closed mid-way (GET + Last-Event-ID, honouring retry:)', async () => {
      const gets: Array<string | null> = [];
      const spy: typeof fetch = (input, init) => {
        if (init?.method === 'GET') gets.push(new Headers(init.headers).get('last-event-id'));
        return fetch(input, init);
      };
      const transport = client(server.url, { fetch: spy });
      const recorder = new Recorder(transport);
      await transport.send(initializeRequest(0));
      transport.useRevision((await recorder.response(0)).result.protocolVersion);
      await transport.send(initializedNotification);
      await transport.send(request(1, 'tools/call', { name: 'poll', arguments: {}, _meta: { progressToken: 'p' } }));
      expect((await recorder.response(1)).result.content).toEqual([{ type: 'text', text: 'Polled' }]);
      expect(recorder.notifications('notifications/progress').map((n) => n.params.progress)).toEqual([1, 2, 3]);
      expect(recorder.related.slice(1)).toEqual([1, 1, 1, 1]);
      expect(gets).toHaveLength(1);
      expect(gets[0]).toEqual(expect.any(String));
      expect(recorder.errors).toEqual([]);
    });

    it('opens the standalone GET stream, and ends the session with DELETE on close', async () => {
      const { transport, recorder } = await connect();
      await transport.openStandaloneStream();
      const sessionId = transport.sessionId as string;
      await transport.close();
      expect(recorder.closes).toBe(1);
      expect(transport.sessionId).toBeUndefined();
      const after = await fetch(server.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Session-Id': sessionId,
        },
        body: JSON.stringify(request(5)),
      });
      expect(after.status).toBe(404);
      await expect(transport.send(request(2))).rejects.toThrow('Transport is closed');
    });

    it('reports an expired session (404) as SessionExpiredError, delivers the server’s error and forgets the id', async () => {
      const { transport, recorder } = await connect();
      const sessionId = transport.sessionId as string;
      await fetch(server.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': sessionId } });
      await transport.send(request(1));
      expect(await recorder.response(1)).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32001, message: 'Session not found' },
      });
      expect(transport.sessionId).toBeUndefined();
      expect(recorder.errors).toHaveLength(1);
      expect(recorder.errors[0]).toBeInstanceOf(SessionExpiredError);
      expect((recorder.errors[0] as SessionExpiredError).sessionId).toBe(sessionId);
      // The client can initialize anew on the same transport.
      await transport.send(initializeRequest(2));
      await recorder.response(2);
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(transport.sessionId).not.toBe(sessionId);
    });

    it('speaks the modern era: per-message headers, no session, cancellation by aborting the POST', async () => {
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.start();
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      await transport.send(request(1, 'server/discover', { _meta: meta }), {
        headers: { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover' },
      });
      expect((await recorder.response(1)).result).toMatchObject({
        supportedVersions: expect.arrayContaining(['2026-07-28']),
      });
      expect(transport.sessionId).toBeUndefined();

      const controller = new AbortController();
      recorder.messages.length = 0;
      transport.onmessage = (message: any) => {
        recorder.messages.push(message);
        if (message.method === 'notifications/progress') controller.abort();
      };
      await transport.send(
        request(2, 'tools/call', { name: 'count', arguments: { steps: 20 }, _meta: { ...meta, progressToken: 'c' } }),
        {
          signal: controller.signal,
          headers: { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'count' },
        },
      );
      await waitFor(() => controller.signal.aborted);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The stream was closed: no further progress, no result, no synthetic answer.
      expect(recorder.messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress']);
      expect(recorder.errors).toEqual([]);
    });
  });

  describe('requests and headers', () => {
    it('sends the configured, protocol, session and per-message headers, and remembers the session id', async () => {
      const server = await raw((req, res, body) => {
        if (req.method === 'DELETE') return void res.writeHead(204).end();
        if (req.method === 'POST' && idOf(body) === 0) return json(res, 200, ok(0), { 'Mcp-Session-Id': 'sess-1' });
        if (req.method === 'POST' && idOf(body) === undefined) return void res.writeHead(202).end();
        return json(res, 200, ok(idOf(body)));
      });
      const transport = client(server.url, {}, { Authorization: 'Bearer t', Accept: 'text/html' });
      const recorder = new Recorder(transport);
      await transport.send(initializeRequest(0));
      await recorder.response(0);
      expect(transport.sessionId).toBe('sess-1');
      transport.useRevision('2025-11-25');
      await transport.send(initializedNotification);
      await transport.send(request(1), { headers: { 'Mcp-Method': 'tools/list' } });
      await recorder.response(1);

      const [first, second, third] = server.requests;
      expect(first.headers).toMatchObject({
        authorization: 'Bearer t',
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      });
      expect(first.headers['mcp-session-id']).toBeUndefined();
      expect(first.headers['mcp-protocol-version']).toBeUndefined();
      expect(second.headers).toMatchObject({ 'mcp-session-id': 'sess-1', 'mcp-protocol-version': '2025-11-25' });
      expect(third.headers).toMatchObject({
        'mcp-session-id': 'sess-1',
        'mcp-method': 'tools/list',
        authorization: 'Bearer t',
      });
      expect(JSON.parse(third.body)).toEqual(request(1));
      // 202 for the notification: nothing delivered.
      expect(recorder.messages.map((m) => m.id)).toEqual([0, 1]);
    });

    it('delivers each element of a JSON array body', async () => {
      const server = await raw((_req, res, body) =>
        json(res, 200, [
          { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
          ok(idOf(body)),
        ]),
      );
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(7));
      await recorder.response(7);
      expect(recorder.messages).toHaveLength(2);
      expect(recorder.related).toEqual([7, 7]);
    });

    it('aborting the signal aborts the POST: send rejects and nothing is delivered', async () => {
      const server = await raw(() => undefined); // never answers
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      const controller = new AbortController();
      const sending = transport.send(request(1), { signal: controller.signal });
      await waitFor(() => server.requests.length === 1);
      controller.abort();
      await expect(sending).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(recorder.messages).toEqual([]);
    });

    it('asks its auth provider for headers on every request, and re-authorizes once on 401', async () => {
      let token = 'expired';
      const server = await raw((req, res, body) =>
        req.headers.authorization === 'Bearer fresh'
          ? json(res, 200, ok(idOf(body)))
          : json(res, 401, { error: 'invalid_token' }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' }),
      );
      const challenges: Array<string | undefined> = [];
      const transport = new StreamableHttpClientTransport(
        {
          url: server.url,
          auth: {
            headers: () => ({ Authorization: `Bearer ${token}` }),
            unauthorized: ({ challenge }) => {
              challenges.push(challenge);
              token = 'fresh';
              return true;
            },
          },
        },
        { reconnect: FAST_RECONNECT },
      );
      transports.push(transport);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      expect((await recorder.response(1)).result).toEqual({});
      await transport.send(request(2));
      expect((await recorder.response(2)).result).toEqual({});
      expect(server.requests.map((r) => r.headers.authorization)).toEqual([
        'Bearer expired',
        'Bearer fresh',
        'Bearer fresh',
      ]);
      expect(challenges).toEqual(['Bearer error="invalid_token"']);
    });

    it('rejects send when the server cannot be reached, naming it and the cause', async () => {
      const server = await raw(() => undefined);
      await server.close();
      const transport = client(server.url);
      await expect(transport.send(request(1))).rejects.toThrow(
        `Cannot reach the MCP server at ${server.url}: connection refused (ECONNREFUSED)`,
      );
    });
  });

  describe('HTTP errors: a request never hangs', () => {
    it('answers a request refused without a JSON-RPC body with a synthetic -32000 error', async () => {
      const server = await raw((_req, res) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom'));
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      const response = await recorder.response(1);
      expect(response).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32000, message: 'HTTP 500 Internal Server Error', data: { status: 500 } },
      });
      expect(isSyntheticResponse(response)).toBe(true);
    });

    it('delivers the server’s JSON-RPC error when it names the request', async () => {
      const server = await raw((_req, res, body) =>
        json(res, 400, { jsonrpc: '2.0', id: idOf(body), error: { code: -32022, message: 'Unsupported' } }),
      );
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      const response = await recorder.response(1);
      expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported' } });
      expect(isSyntheticResponse(response)).toBe(false);
    });

    it('keeps the status and the (sanitized) server message when the error names no id', async () => {
      const server = await raw((_req, res) =>
        json(res, 406, { jsonrpc: '2.0', error: { code: -32000, message: 'Not Acceptable\u001b[31m\n' } }),
      );
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      expect((await recorder.response(1)).error).toEqual({
        code: -32000,
        message: 'HTTP 406 Not Acceptable: Not Acceptable[31m',
        data: { status: 406 },
      });
    });

    it('rejects send of a notification the server refuses', async () => {
      const server = await raw((_req, res) => res.writeHead(503).end());
      const transport = client(server.url);
      await expect(transport.send(initializedNotification)).rejects.toThrow(
        'The server refused the message: HTTP 503 Service Unavailable',
      );
    });

    it('answers a request the server accepted with 202 but never answered', async () => {
      const server = await raw((_req, res) => res.writeHead(202).end());
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      expect((await recorder.response(1)).error.message).toBe('The server accepted the request without answering it');
    });

    it('answers a request whose JSON reply does not contain its response', async () => {
      const server = await raw((_req, res) => json(res, 200, ok(999)));
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      expect((await recorder.response(1)).error.message).toBe("The server's reply did not answer the request");
      expect(recorder.messages[0].id).toBe(999);
    });
  });

  describe('size limit', () => {
    const huge = (id: unknown) => JSON.stringify(ok(id, { s: 'a'.repeat(10 * 1024 * 1024) }));

    it('refuses a JSON body over 10 MiB (declared length) and answers the request', async () => {
      const server = await raw((_req, res, body) => {
        const text = huge(idOf(body));
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      const response = await recorder.response(1);
      expect(response).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32000, message: 'Response too large (over 10485760 bytes)' },
      });
      expect(recorder.messages).toHaveLength(1);
      expect(recorder.errors[0]).toBeInstanceOf(MessageTooLargeError);
    });

    it('refuses a chunked JSON body once it grows past the limit', async () => {
      const server = await raw((_req, res, body) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(huge(idOf(body)));
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      expect((await recorder.response(1)).error.message).toBe('Response too large (over 10485760 bytes)');
      expect(recorder.errors[0]).toBeInstanceOf(MessageTooLargeError);
    });

    it('refuses an SSE event over the limit and answers the request', async () => {
      const server = await raw((_req, res, body) => {
        sseHead(res);
        res.write(
          sseEvent(
            { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'small' } },
            { id: '1' },
          ),
        );
        res.write(sseEvent(ok(idOf(body), { s: 'a'.repeat(2_000) }), { id: '2' }));
        res.end();
      });
      const transport = client(server.url, { maxMessageBytes: 1_000 });
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      expect((await recorder.response(1)).error.message).toBe('Response too large (over 1000 bytes)');
      expect(recorder.messages).toHaveLength(2);
      expect(recorder.errors[0]).toBeInstanceOf(MessageTooLargeError);
      expect(server.requests).toHaveLength(1); // no resumption of a refused stream
    });
  });

  describe('SSE replies and resumption', () => {
    it('resumes a dropped stream with GET + Last-Event-ID after the server’s retry: delay', async () => {
      let getAt = 0;
      let postAt = 0;
      const server = await raw((req, res, _body) => {
        if (req.method === 'POST') {
          postAt = Date.now();
          sseHead(res, { 'Mcp-Session-Id': 's' });
          res.write(
            sseEvent(
              { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
              { id: 'e1', retry: 150 },
            ),
          );
          setTimeout(() => res.destroy(), 20); // dropped mid-way
          return;
        }
        getAt = Date.now();
        sseHead(res);
        res.write(
          sseEvent(
            { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } },
            { id: 'e2' },
          ),
        );
        res.end(sseEvent(ok(1, { done: true }), { id: 'e3' }));
      });
      const transport = client(server.url, { reconnect: { ...FAST_RECONNECT, maxDelayMs: 1_000 } });
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      expect(await recorder.response(1)).toEqual(ok(1, { done: true }));
      expect(recorder.notifications('notifications/progress').map((n) => n.params.progress)).toEqual([1, 2]);
      expect(recorder.related).toEqual([1, 1, 1]);
      const get = server.requests[1];
      expect(get.method).toBe('GET');
      expect(get.headers).toMatchObject({ 'last-event-id': 'e1', accept: 'text/event-stream', 'mcp-session-id': 's' });
      expect(getAt - postAt).toBeGreaterThanOrEqual(150);
      expect(server.requests).toHaveLength(2);
    });

    it('caps the server’s retry: delay at maxDelayMs', async () => {
      const times: number[] = [];
      const server = await raw((req, res) => {
        times.push(Date.now());
        sseHead(res);
        if (req.method === 'POST') return void res.end(sseEvent('', { id: 'e1', retry: 60_000 }));
        res.end(sseEvent(ok(1), { id: 'e2' }));
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      await recorder.response(1);
      expect(times[1] - times[0]).toBeGreaterThanOrEqual(100);
      expect(times[1] - times[0]).toBeLessThan(1_000);
    });

    it('answers a request whose stream ended without event ids', async () => {
      const server = await raw((_req, res) => {
        sseHead(res);
        res.end(sseEvent({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }));
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      expect((await recorder.response(1)).error.message).toBe(
        'The response stream ended before the response, and cannot be resumed',
      );
      expect(server.requests).toHaveLength(1);
    });

    it('gives up after maxRetries failed reconnections and answers the request', async () => {
      const server = await raw((req, res) => {
        if (req.method === 'GET') return void res.writeHead(500).end();
        sseHead(res);
        res.end(
          sseEvent(
            { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
            { id: 'e1' },
          ),
        );
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      expect((await recorder.response(1)).error.message).toBe(
        'The response stream was lost (gave up after 3 reconnection attempts)',
      );
      expect(server.requests.filter((r) => r.method === 'GET')).toHaveLength(3);
      expect(recorder.errors.map((e) => e.message)).toEqual(['SSE stream lost: gave up after 3 reconnection attempts']);
    });

    it('stops when the server has nothing more to resume (204)', async () => {
      const server = await raw((req, res) => {
        if (req.method === 'GET') return void res.writeHead(204).end();
        sseHead(res);
        res.end(sseEvent('', { id: 'e1' }));
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      expect((await recorder.response(1)).error.message).toBe(
        'The server cannot resume the response stream (HTTP 204)',
      );
    });

    it('ignores events of other types and reports data that is not JSON', async () => {
      const server = await raw((_req, res, body) => {
        sseHead(res);
        res.write(sseEvent('{"ignored":true}', { event: 'other' }));
        res.write(sseEvent('not json'));
        res.end(sseEvent(ok(idOf(body))));
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      await recorder.response(1);
      expect(recorder.messages).toEqual([ok(1)]);
      expect(recorder.errors.map((e) => e.message)).toEqual(['The server sent an SSE event that is not JSON']);
    });
  });

  describe('standalone GET stream', () => {
    it('resolves quietly when the server has none (405)', async () => {
      const server = await raw((_req, res) => res.writeHead(405, { Allow: 'POST' }).end());
      const transport = client(server.url);
      await expect(transport.openStandaloneStream()).resolves.toBeUndefined();
    });

    it('delivers its messages and reconnects with Last-Event-ID when it drops', async () => {
      const server = await raw((req, res) => {
        sseHead(res);
        const gets = server.requests.length;
        const note = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { n } });
        if (gets === 1) return void res.end(sseEvent(note(1), { id: 'a' }));
        res.write(sseEvent(note(2), { id: 'b' }));
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.openStandaloneStream();
      await waitFor(() => recorder.messages.length === 2);
      expect(recorder.messages.map((m) => m.params.n)).toEqual([1, 2]);
      expect(recorder.related).toEqual([undefined, undefined]);
      expect(server.requests[1].headers['last-event-id']).toBe('a');
      await transport.close(); // aborts the open stream
      expect(recorder.closes).toBe(1);
    });

    it('rejects on a 404 for our session, reporting SessionExpiredError', async () => {
      const server = await raw((req, res) => {
        if (req.method === 'POST') return json(res, 200, ok(0), { 'Mcp-Session-Id': 'gone' });
        json(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } });
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(initializeRequest(0));
      await recorder.response(0);
      await expect(transport.openStandaloneStream()).rejects.toThrow('HTTP 404');
      expect(recorder.errors[0]).toBeInstanceOf(SessionExpiredError);
      expect(transport.sessionId).toBeUndefined();
    });
  });

  describe('redirects', () => {
    it('follows a 307 within the origin, keeping the method and body', async () => {
      const server = await startRawServer((req, res, body) => {
        if (req.url === '/old') return void res.writeHead(307, { Location: '/mcp' }).end();
        json(res, 200, ok(idOf(body)));
      }, '/old');
      servers.push(server);
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      await recorder.response(1);
      expect(server.requests.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
        `POST /old ${JSON.stringify(request(1))}`,
        `POST /mcp ${JSON.stringify(request(1))}`,
      ]);
    });

    it('refuses a redirect to another origin', async () => {
      const elsewhere = await raw((_req, res) => json(res, 200, ok(1)));
      const server = await raw((_req, res) => res.writeHead(307, { Location: elsewhere.url }).end());
      const transport = client(server.url, {}, { Authorization: 'Bearer secret' });
      const recorder = new Recorder(transport);
      await expect(transport.send(request(1))).rejects.toThrow(
        `Refused HTTP 307 redirect from ${transport.origin} to ${new URL(elsewhere.url).origin}`,
      );
      expect(elsewhere.requests).toEqual([]);
      expect(recorder.messages).toEqual([]);
    });

    it('refuses a redirect that would turn the POST into a GET', async () => {
      const server = await raw((_req, res) => res.writeHead(302, { Location: '/elsewhere' }).end());
      const transport = client(server.url);
      await expect(transport.send(request(1))).rejects.toThrow(
        'Refused HTTP 302 redirect: it would turn the POST into a GET',
      );
    });
  });

  describe('close', () => {
    it('aborts streams in flight, sends DELETE with the session id, and fires onclose once', async () => {
      const server = await raw((req, res) => {
        if (req.method === 'DELETE') return void res.writeHead(204).end();
        sseHead(res, { 'Mcp-Session-Id': 'sess-9' });
        res.write(
          sseEvent(
            { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
            { id: '1' },
          ),
        );
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(request(1));
      await waitFor(() => recorder.messages.length === 1);
      await transport.close();
      await transport.close();
      expect(recorder.closes).toBe(1);
      const last = server.requests[server.requests.length - 1];
      expect(last.method).toBe('DELETE');
      expect(last.headers['mcp-session-id']).toBe('sess-9');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(recorder.messages).toHaveLength(1); // no synthetic answer after close
      expect(server.requests.filter((r) => r.method === 'GET')).toEqual([]);
    });

    it('fires onclose even when the DELETE fails', async () => {
      const server = await raw((req, res) => {
        if (req.method === 'DELETE') return void res.destroy();
        json(res, 200, ok(0), { 'Mcp-Session-Id': 's' });
      });
      const transport = client(server.url);
      const recorder = new Recorder(transport);
      await transport.send(initializeRequest(0));
      await recorder.response(0);
      await transport.close();
      expect(recorder.closes).toBe(1);
    });
  });
});

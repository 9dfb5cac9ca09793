import http from 'node:http';
import { Logger } from '@nestjs/common';
import type { McpAuthenticator, McpAuthResult } from '../../auth/mcp-authenticator.interface';
import type { TransportFacts } from '../../dispatch/transport-facts.interface';
import { McpHttpOptions } from '../../interfaces/mcp-module-options.interface';
import { resolveHttpOptions } from './http-options';
import { LegacySseHandler } from './legacy-sse.handler';
import { StreamableHttpHandler } from './streamable-http.handler';
import {
  FakeEndpoint,
  POST_HEADERS,
  SseReader,
  TestResponse,
  TestServer,
  initialize,
  post,
  request,
  startServer,
} from './http-test.fixtures-spec';

const CHALLENGE = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"';
const ALICE = { subject: 'alice', clientId: 'inspector', scopes: ['notes:read'], claims: { sub: 'alice' } };

/** Lets `Bearer good` through as alice, refuses `Bearer reader` with 403, and anything else with a 401 challenge. */
function bearerAuthenticator(): jest.Mock<McpAuthResult, [TransportFacts]> {
  return jest.fn((facts: TransportFacts): McpAuthResult => {
    const header = facts.headers.authorization;
    if (header === 'Bearer good') return { ok: true, auth: { ...ALICE, token: 'good' } };
    if (header === 'Bearer reader')
      return { ok: false, status: 403, challenge: 'Bearer error="insufficient_scope"', message: 'Read only' };
    return { ok: false, status: 401, challenge: CHALLENGE };
  });
}

const GOOD = { authorization: 'Bearer good' };

describe('the HTTP authenticator', () => {
  let endpoint: FakeEndpoint;
  let server: TestServer;
  let port: number;
  const readers: SseReader[] = [];

  async function serve(options: McpHttpOptions): Promise<void> {
    endpoint = new FakeEndpoint();
    const resolved = resolveHttpOptions(options);
    const streamable = new StreamableHttpHandler(endpoint, resolved);
    const legacy = new LegacySseHandler(endpoint, resolved);
    server = await startServer((req, res) =>
      req.url?.startsWith('/mcp') ? void streamable.handle(req, res) : void legacy.handle(req, res),
    );
    port = server.port;
  }

  function expectRefusal(res: TestResponse, status: number, message: string): void {
    expect(res.status).toBe(status);
    expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32000, message } });
  }

  afterEach(async () => {
    readers.splice(0).forEach((reader) => reader.destroy());
    await server?.close();
    endpoint?.sessions.clear();
    jest.restoreAllMocks();
  });

  describe('Streamable HTTP', () => {
    let authenticator: ReturnType<typeof bearerAuthenticator>;

    beforeEach(async () => {
      authenticator = bearerAuthenticator();
      await serve({ authenticator: { authenticate: authenticator } });
    });

    it('answers 401 with the challenge and a JSON-RPC error, dispatching nothing', async () => {
      const res = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' });
      expectRefusal(res, 401, 'Unauthorized');
      expect(res.headers['www-authenticate']).toBe(CHALLENGE);
      expect(endpoint.received).toEqual([]);
    });

    it('refuses before reading the body: an endless upload is answered at once, and its connection closed', async () => {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/mcp',
          headers: { ...POST_HEADERS, 'transfer-encoding': 'chunked' },
          agent: false,
        });
        req.on('response', resolve);
        req.on('error', reject);
        // The body starts but never ends: a server that read it first would never answer.
        req.write('{"jsonrpc":"2.0","id":1,');
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers.connection).toBe('close');
      res.destroy();
      expect(endpoint.received).toEqual([]);
    });

    it('answers 403 with the challenge and the message the authenticator gave', async () => {
      const res = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { authorization: 'Bearer reader' });
      expectRefusal(res, 403, 'Read only');
      expect(res.headers['www-authenticate']).toBe('Bearer error="insufficient_scope"');
      expect(endpoint.received).toEqual([]);
    });

    it('passes what it established to the dispatcher as TransportFacts.auth', async () => {
      const res = await post(
        port,
        { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
        GOOD,
      );
      expect(res.status).toBe(200);
      expect(endpoint.received).toHaveLength(1);
      expect(endpoint.received[0].origin.facts.auth).toEqual({ ...ALICE, token: 'good' });
      expect(authenticator).toHaveBeenCalledWith(
        expect.objectContaining({ kind: 'streamable-http', headers: expect.objectContaining(GOOD) }),
      );
    });

    it('guards GET and DELETE too', async () => {
      const res = await post(
        port,
        { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
        GOOD,
      );
      const sessionId = res.headers['mcp-session-id'] as string;
      // The real server's initialize binds the session to its opener (this test endpoint only echoes).
      endpoint.sessions.get(sessionId)!.principal = ALICE.subject;
      const headers = { 'mcp-session-id': sessionId, accept: 'text/event-stream' };

      const refusedGet = await request(port, { method: 'GET', headers });
      expect(refusedGet.status).toBe(401);
      expect(refusedGet.headers['www-authenticate']).toBe(CHALLENGE);
      expect(endpoint.sessions.get(sessionId)!.outbound).toBeUndefined();
      const stream = await SseReader.open(port, { headers: { ...headers, ...GOOD } });
      readers.push(stream);
      expect(stream.status).toBe(200);

      expect((await request(port, { method: 'DELETE', headers })).status).toBe(401);
      expect(endpoint.sessions.get(sessionId)).toBeDefined();
      expect((await request(port, { method: 'DELETE', headers: { ...headers, ...GOOD } })).status).toBe(204);
    });

    it('runs after the Host and Origin checks: a refused Host or Origin never reaches it', async () => {
      const host = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { host: 'evil.example.com' });
      const origin = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { origin: 'http://evil.example' });
      expect([host.status, origin.status]).toEqual([403, 403]);
      expect(authenticator).not.toHaveBeenCalled();
    });

    it('is not asked about methods the endpoint does not serve (405)', async () => {
      expect((await request(port, { method: 'PUT' })).status).toBe(405);
      expect(authenticator).not.toHaveBeenCalled();
    });
  });

  describe('HTTP+SSE (2024-11-05)', () => {
    beforeEach(() => serve({ authenticator: { authenticate: bearerAuthenticator() } }));

    async function connect(): Promise<{ reader: SseReader; messageUrl: string }> {
      const reader = await SseReader.open(port, { path: '/sse', headers: { accept: 'text/event-stream', ...GOOD } });
      readers.push(reader);
      await reader.until((r) => r.events.length === 1);
      return { reader, messageUrl: reader.events[0].data };
    }

    it('guards the SSE endpoint', async () => {
      const res = await request(port, { method: 'GET', path: '/sse', headers: { accept: 'text/event-stream' } });
      expectRefusal(res, 401, 'Unauthorized');
      expect(res.headers['www-authenticate']).toBe(CHALLENGE);
      expect(endpoint.sessions.size).toBe(0);
    });

    it('guards the message endpoint, and passes the auth of each POST to the dispatcher', async () => {
      const { reader, messageUrl } = await connect();
      const message = { jsonrpc: '2.0', id: 1, method: 'echo', params: {} };
      const headers = { 'content-type': 'application/json' };
      const refused = await request(port, { path: messageUrl, body: message, headers });
      expectRefusal(refused, 401, 'Unauthorized');
      expect(endpoint.received).toEqual([]);

      const accepted = await request(port, { path: messageUrl, body: message, headers: { ...headers, ...GOOD } });
      expect(accepted.status).toBe(202);
      await reader.until((r) => r.messages.length === 1);
      expect(endpoint.received[0].origin.facts).toMatchObject({ kind: 'sse', auth: { subject: 'alice' } });
    });
  });

  describe('failures', () => {
    it.each([
      ['throws', () => jest.fn(() => Promise.reject(new Error('jwks at 10.0.0.7 unreachable')))],
      [
        'throws synchronously',
        () =>
          jest.fn(() =>
            (() => {
              throw new Error('secret detail');
            })(),
          ),
      ],
      ['returns no verdict', () => jest.fn(() => undefined)],
      [
        'returns a challenge that is not a header value',
        () => jest.fn(() => ({ ok: false, status: 401, challenge: 'a\r\nb' })),
      ],
    ])('answers 500 with a generic message when it %s', async (_, make) => {
      jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const authenticate = make();
      await serve({ authenticator: { authenticate } as unknown as McpAuthenticator });
      const res = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' });
      expect(authenticate).toHaveBeenCalled();
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' } });
      expect(res.text).not.toMatch(/10\.0\.0\.7|secret|\r/);
      expect(endpoint.received).toEqual([]);
    });

    it('challenges with Bearer when a 401 names no challenge; a 403 without one has none', async () => {
      let verdict: McpAuthResult = { ok: false, status: 401 };
      await serve({ authenticator: { authenticate: async () => verdict } });
      const unauthorized = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers['www-authenticate']).toBe('Bearer');
      verdict = { ok: false, status: 403 };
      const forbidden = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' });
      expectRefusal(forbidden, 403, 'Forbidden');
      expect(forbidden.headers['www-authenticate']).toBeUndefined();
    });

    it('lets a request through with no auth when the verdict carries none', async () => {
      await serve({ authenticator: { authenticate: () => ({ ok: true }) } });
      expect(await initialize(port)).toMatch(/^[0-9a-f-]{36}$/);
      expect(endpoint.received[0].origin.facts.auth).toBeUndefined();
    });

    it('refuses an authenticator without an authenticate method at start-up', () => {
      expect(() => resolveHttpOptions({ authenticator: {} as McpAuthenticator })).toThrow(/authenticate/);
    });
  });
});

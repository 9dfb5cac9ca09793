import { McpHttpOptions } from '../../interfaces/mcp-module-options.interface';
import { CorsPolicy, MCP_REQUEST_HEADERS } from './cors.policy';
import { resolveHttpOptions } from './http-options';
import { LegacySseHandler } from './legacy-sse.handler';
import { StreamableHttpHandler } from './streamable-http.handler';
import { FakeEndpoint, SseReader, TestServer, initialize, post, request, startServer } from './http-test.fixtures-spec';

const APP = 'https://app.example.com';
const FIXED_HEADERS = MCP_REQUEST_HEADERS.join(', ');

describe('CorsPolicy', () => {
  it('allows the listed origins, compared normalized', () => {
    const cors = new CorsPolicy({ origins: ['https://App.Example.com:443/', 'http://localhost:5173'] });
    expect(cors.allowsOrigin(APP)).toBe(true);
    expect(cors.allowsOrigin('http://localhost:5173')).toBe(true);
    expect(cors.allowsOrigin('http://localhost:5174')).toBe(false);
    expect(cors.allowsOrigin('http://app.example.com')).toBe(false);
    expect(cors.allowsOrigin('null')).toBe(false);
  });

  it("allows any well-formed origin with '*', never null", () => {
    const cors = new CorsPolicy({ origins: '*' });
    expect(cors.allowsOrigin('https://anything.example')).toBe(true);
    expect(cors.allowsOrigin('null')).toBe(false);
    expect(cors.allowsOrigin('https://x.example/path')).toBe(false);
  });

  it('echoes requested headers when each is acceptable, else answers the fixed list plus the Mcp-Param-* asked', () => {
    const cors = new CorsPolicy({ origins: [APP], allowedHeaders: ['X-Api-Key'] });
    expect(cors.allowedHeadersFor('Content-Type, Mcp-Session-Id,mcp-param-region, x-api-key')).toBe(
      'content-type, mcp-session-id, mcp-param-region, x-api-key',
    );
    expect(cors.allowedHeadersFor(undefined)).toBe(`${FIXED_HEADERS}, x-api-key`);
    expect(cors.allowedHeadersFor('content-type, x-secret, mcp-param-a, mcp-param-')).toBe(
      `${FIXED_HEADERS}, x-api-key, mcp-param-a`,
    );
  });

  it('refuses bad configurations at start-up', () => {
    expect(() => new CorsPolicy({ origins: ['app.example.com'] })).toThrow(/not an origin/);
    expect(() => new CorsPolicy({ origins: [`${APP}/path`] })).toThrow(/not an origin/);
    expect(() => new CorsPolicy({ origins: '*', credentials: true })).toThrow(/credentials/);
    expect(() => new CorsPolicy({ origins: [APP], maxAgeSeconds: -1 })).toThrow(/maxAgeSeconds/);
    expect(() => new CorsPolicy({ origins: 'https://a.example' as unknown as string[] })).toThrow(/origins/);
  });
});

describe('CORS on the HTTP endpoints', () => {
  let endpoint: FakeEndpoint;
  let server: TestServer;
  let port: number;
  const readers: SseReader[] = [];

  async function serve(options: McpHttpOptions = {}): Promise<void> {
    endpoint = new FakeEndpoint();
    const resolved = resolveHttpOptions(options);
    const streamable = new StreamableHttpHandler(endpoint, resolved);
    const legacy = new LegacySseHandler(endpoint, resolved);
    server = await startServer((req, res) =>
      req.url?.startsWith('/mcp') ? void streamable.handle(req, res) : void legacy.handle(req, res),
    );
    port = server.port;
  }

  const preflight = (origin: string, path = '/mcp', method = 'POST', headers = 'content-type, mcp-session-id') =>
    request(port, {
      method: 'OPTIONS',
      path,
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': headers,
      },
    });

  afterEach(async () => {
    readers.splice(0).forEach((reader) => reader.destroy());
    await server.close();
    endpoint.sessions.clear();
  });

  describe('off (the default)', () => {
    beforeEach(() => serve());

    it('answers OPTIONS 405, as before, and adds no CORS header', async () => {
      const res = await preflight('http://localhost:5173');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, POST, DELETE');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      const answered = await post(
        port,
        { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} },
        {
          origin: 'http://localhost:5173',
        },
      );
      expect(answered.headers['access-control-allow-origin']).toBeUndefined();
      expect(answered.headers.vary).toBeUndefined();
    });
  });

  describe('on', () => {
    beforeEach(() => serve({ cors: { origins: [APP, 'http://localhost:5173'], maxAgeSeconds: 3600 } }));

    it('answers the preflight of an allowed origin 204 with the CORS headers', async () => {
      const res = await preflight(APP);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': APP,
        'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
        'access-control-allow-headers': 'content-type, mcp-session-id',
        'access-control-max-age': '3600',
        vary: expect.stringContaining('Origin'),
      });
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    });

    it('refuses the preflight of another origin with 403 and no Access-Control-Allow-Origin', async () => {
      const res = await preflight('https://evil.example.com');
      expect(res.status).toBe(403);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('refuses the preflight of an origin the Origin check accepts but CORS does not', async () => {
      const res = await preflight('http://127.0.0.1:8080');
      expect(res.status).toBe(403);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('lets a CORS origin past the Origin check, and marks its responses', async () => {
      const res = await post(
        port,
        { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
        { origin: APP },
      );
      expect(res.status).toBe(200);
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': APP,
        'access-control-expose-headers': 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate',
        vary: 'Origin',
      });
    });

    it('marks error responses and SSE streams too', async () => {
      const error = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { origin: APP });
      expect(error.status).toBe(400);
      expect(error.headers['access-control-allow-origin']).toBe(APP);
      const sessionId = await initialize(port);
      const stream = await SseReader.open(port, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, origin: APP },
      });
      readers.push(stream);
      expect(stream.status).toBe(200);
      expect(stream.headers['access-control-allow-origin']).toBe(APP);
    });

    it('adds no Access-Control-Allow-Origin for a request without Origin, or from an origin CORS does not allow', async () => {
      const plain = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' });
      expect(plain.headers['access-control-allow-origin']).toBeUndefined();
      expect(plain.headers.vary).toBe('Origin');
      const loopback = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { origin: 'http://localhost:3000' });
      expect(loopback.status).toBe(400);
      expect(loopback.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('still refuses an origin neither CORS nor the Origin check accepts', async () => {
      const res = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { origin: 'https://evil.example.com' });
      expect(res.status).toBe(403);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('lists OPTIONS in Allow, and answers an OPTIONS that is no preflight 405', async () => {
      const res = await request(port, { method: 'OPTIONS' });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, POST, DELETE, OPTIONS');
    });

    it('serves the HTTP+SSE endpoints the same way', async () => {
      const sse = await preflight(APP, '/sse', 'GET', 'accept');
      expect(sse.status).toBe(204);
      expect(sse.headers['access-control-allow-origin']).toBe(APP);
      const message = await preflight(APP, '/message?sessionId=x', 'POST', 'content-type');
      expect(message.status).toBe(204);
      expect((await preflight('https://evil.example.com', '/sse', 'GET')).status).toBe(403);

      const stream = await SseReader.open(port, {
        path: '/sse',
        headers: { accept: 'text/event-stream', origin: APP },
      });
      readers.push(stream);
      await stream.until((r) => r.events.length === 1);
      expect(stream.headers['access-control-allow-origin']).toBe(APP);
      expect(stream.headers['access-control-expose-headers']).toContain('Mcp-Session-Id');
      const accepted = await request(port, {
        path: stream.events[0].data,
        body: { jsonrpc: '2.0', method: 'notifications/initialized' },
        headers: { 'content-type': 'application/json', origin: APP },
      });
      expect(accepted.status).toBe(202);
      expect(accepted.headers['access-control-allow-origin']).toBe(APP);
      const put = await request(port, { method: 'PUT', path: '/sse' });
      expect(put.headers.allow).toBe('GET, OPTIONS');
    });
  });

  it('allows credentials when asked to', async () => {
    await serve({ cors: { origins: [APP], credentials: true } });
    const res = await preflight(APP);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-max-age']).toBe('600');
    const answered = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { origin: APP });
    expect(answered.headers['access-control-allow-credentials']).toBe('true');
  });

  it("with '*', accepts any origin, echoing it", async () => {
    await serve({ cors: { origins: '*' } });
    const res = await preflight('https://anywhere.example');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://anywhere.example');
    const answered = await post(
      port,
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
      { origin: 'https://anywhere.example' },
    );
    expect(answered.status).toBe(200);
    expect(answered.headers['access-control-allow-origin']).toBe('https://anywhere.example');
  });

  it('still checks the Host of a preflight first', async () => {
    await serve({ cors: { origins: '*' } });
    const res = await request(port, {
      method: 'OPTIONS',
      headers: { host: 'evil.example.com', origin: APP, 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a preflight without asking the authenticator', async () => {
    const authenticate = jest.fn(() => ({ ok: false as const, status: 401 as const }));
    await serve({ cors: { origins: [APP] }, authenticator: { authenticate } });
    expect((await preflight(APP)).status).toBe(204);
    expect(authenticate).not.toHaveBeenCalled();
    const refused = await post(port, { jsonrpc: '2.0', id: 1, method: 'echo' }, { origin: APP });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(APP);
    expect(refused.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
  });
});

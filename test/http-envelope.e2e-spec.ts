import { startDemoServer, RunningServer } from './support/demo-server';
import { WireSchema } from './support/wire-schema';
import { HTTP_ADAPTERS } from './support/http-adapters';

const JSON_AND_SSE = 'application/json, text/event-stream';
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** The HTTP envelope of the demo server: status codes, headers and JSON-RPC error bodies, over real sockets. */
describe.each(HTTP_ADAPTERS)('Streamable HTTP envelope (%s)', (adapter) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startDemoServer({}, adapter);
  });

  afterAll(async () => {
    await server.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  async function expectJsonRpcError(response: Response, status: number, code?: number) {
    expect(response.status).toBe(status);
    const body = await response.json();
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      error: { code: code ?? expect.any(Number), message: expect.any(String) },
    });
    expect(JSON.stringify(body)).not.toMatch(/\bat .*\.(js|ts):\d+/);
    return body;
  }

  async function openSession(): Promise<string> {
    const response = await post(INIT);
    expect(response.status).toBe(200);
    const id = response.headers.get('mcp-session-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await response.text();
    return id;
  }

  it('initializes with a fresh session id and answers JSON', async () => {
    const response = await post(INIT);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toMatchObject({
      id: 1,
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'conduit-demo' } },
    });
    expect(response.headers.get('mcp-session-id')).not.toBe(await openSession());
  });

  it('gives a client with an unsupported version the latest one', async () => {
    const response = await post({ ...INIT, params: { ...INIT.params, protocolVersion: '1999-01-01' } });
    expect(await response.json()).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])(
    'agrees to revision %s when a client asks for it',
    async (revision) => {
      const response = await post({ ...INIT, params: { ...INIT.params, protocolVersion: revision } });
      const body = (await response.json()) as Record<string, unknown> & { result: { protocolVersion: string } };
      expect(body.result.protocolVersion).toBe(revision);
      expect(WireSchema.for(revision).check(body, 'initialize')).toEqual([]);
    },
  );

  it('400 without a session id, 404 for an unknown one, 404 after DELETE', async () => {
    await expectJsonRpcError(await post({ jsonrpc: '2.0', id: 2, method: 'ping' }), 400);
    await expectJsonRpcError(await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': 'nope' }), 404);
    const id = await openSession();
    const ok = await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': id });
    expect(await ok.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect((await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': id } })).status).toBeLessThan(300);
    await expectJsonRpcError(await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': id }), 404);
  });

  it('202 for notifications', async () => {
    const id = await openSession();
    const response = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id });
    expect(response.status).toBe(202);
  });

  it('400 with -32700 for malformed JSON', async () => {
    await expectJsonRpcError(await post('{"jsonrpc":'), 400, -32700);
  });

  it('400 for an unsupported MCP-Protocol-Version', async () => {
    const id = await openSession();
    await expectJsonRpcError(
      await post(
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { 'mcp-session-id': id, 'mcp-protocol-version': '1999-01-01' },
      ),
      400,
    );
  });

  it('403 for a foreign Host or Origin', async () => {
    await expectJsonRpcError(await post(INIT, { origin: 'https://evil.example' }), 403);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        server.url,
        { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', accept: JSON_AND_SSE } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(INIT));
    });
    expect(status).toBe(403);
  });

  it('405 with Allow for other methods', async () => {
    const response = await fetch(server.url, { method: 'PUT' });
    expect(response.headers.get('allow')).toMatch(/GET.*POST.*DELETE|POST.*GET.*DELETE/);
    await expectJsonRpcError(response, 405);
  });

  it('406 when Accept lacks a needed type, 415 for another Content-Type', async () => {
    await expectJsonRpcError(await post(INIT, { accept: 'text/html' }), 406);
    await expectJsonRpcError(await post(INIT, { 'content-type': 'text/plain' }), 415);
  });

  it('413 for a body over 4 MiB', async () => {
    const big = { ...INIT, params: { ...INIT.params, padding: 'x'.repeat(4 * 1024 * 1024 + 1) } };
    const response = await post(big);
    expect(response.status).toBe(413);
  });

  it('leaves every other route to Express (the terminus health check)', async () => {
    const health = await fetch(new URL('/health', server.url));
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', info: { mcp: { status: 'up', registryLoaded: true } } });
  });
});

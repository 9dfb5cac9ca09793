// Issue 12, item 7: JSON-RPC batches only where the negotiated revision has them (2025-03-26 and older), bounded in
// length, never with initialize.
import http from 'node:http';
import { HTTP_MOUNTS, HardeningApp, startHardeningApp } from './scenarios/http-hardening/hardening.app';

const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface Answer {
  status: number;
  json: unknown;
}

async function post(base: string, body: unknown, headers: Record<string, string> = {}, path = '/mcp'): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...POST_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

async function openSession(base: string, protocolVersion: string): Promise<Record<string, string>> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: POST_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'batch-test', version: '1' } },
    }),
  });
  expect(res.status).toBe(200);
  const headers = { 'mcp-session-id': res.headers.get('mcp-session-id')!, 'mcp-protocol-version': protocolVersion };
  expect((await post(base, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
  return headers;
}

const pings = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));

function invalidRequest(message: RegExp) {
  return { jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(message) } };
}

describe.each(HTTP_MOUNTS)('JSON-RPC batches over HTTP ($name)', (mount) => {
  let server: HardeningApp;

  beforeAll(async () => {
    server = await startHardeningApp(mount, { maxBatchLength: 4 });
  });

  afterAll(() => server.close());

  it.each(['2025-11-25', '2025-06-18'])('refuses a batch on a session at %s with 400 and -32600', async (revision) => {
    const session = await openSession(server.base, revision);
    const res = await post(server.base, pings(2), session);
    expect(res).toEqual({ status: 400, json: invalidRequest(/batches are not part of revision .*2025-06-18/) });
    // The session itself still serves single messages.
    expect(await post(server.base, pings(1)[0], session)).toEqual({
      status: 200,
      json: { jsonrpc: '2.0', id: 1, result: {} },
    });
  });

  it('answers a batch on a session at 2025-03-26, up to maxBatchLength messages', async () => {
    const session = await openSession(server.base, '2025-03-26');
    const res = await post(server.base, pings(4), session);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(pings(4).map(({ id }) => ({ jsonrpc: '2.0', id, result: {} })));
  });

  it('refuses a batch longer than maxBatchLength with 400 and -32600, dispatching none of it', async () => {
    const session = await openSession(server.base, '2025-03-26');
    const res = await post(
      server.base,
      [
        { jsonrpc: '2.0', id: 'first', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } },
        ...pings(4),
      ],
      session,
    );
    expect(res).toEqual({ status: 400, json: invalidRequest(/at most 4 messages/) });
  });

  it('refuses a huge batch at once, without making anything of its messages', async () => {
    const session = await openSession(server.base, '2025-03-26');
    // Under the Express mount's own body limit (Nest's JSON parser: 100 kB) there; far past it elsewhere.
    const res = await post(server.base, pings(mount.mount === 'express' ? 2_000 : 50_000), session);
    expect(res).toEqual({ status: 400, json: invalidRequest(/at most 4 messages/) });
  });

  it('never takes initialize inside a batch', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'b', version: '1' } },
    };
    expect(await post(server.base, [initialize])).toEqual({
      status: 400,
      json: invalidRequest(/initialize must not be part of a batch/),
    });
    const session = await openSession(server.base, '2025-03-26');
    expect(await post(server.base, [...pings(1), { ...initialize, id: 9 }], session)).toEqual({
      status: 400,
      json: invalidRequest(/initialize must not be part of a batch/),
    });
  });

  it('refuses a modern-era batch with 400 and -32600', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const res = await post(
      server.base,
      [{ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }],
      {
        'mcp-protocol-version': '2026-07-28',
      },
    );
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { code: -32600 } });
  });

  it('refuses an HTTP+SSE batch longer than maxBatchLength, before answering 202', async () => {
    const sessionPath = await new Promise<{ path: string; close(): void }>((resolve, reject) => {
      const req = http.get(
        { host: '127.0.0.1', port: server.port, path: '/sse', headers: { accept: 'text/event-stream' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            const match = /event: endpoint\ndata: (\S+)\n/.exec(text);
            if (match) resolve({ path: match[1], close: () => res.destroy() });
          });
        },
      );
      req.on('error', reject);
    });
    try {
      expect(await post(server.base, pings(5), {}, sessionPath.path)).toEqual({
        status: 400,
        json: invalidRequest(/at most 4 messages/),
      });
      expect((await post(server.base, pings(2), {}, sessionPath.path)).status).toBe(202);
    } finally {
      sessionPath.close();
    }
  });
});

describe.each(HTTP_MOUNTS)('JSON-RPC batches in stateless mode ($name)', (mount) => {
  let server: HardeningApp;

  beforeAll(async () => {
    server = await startHardeningApp(mount, { sessionMode: 'stateless', legacySse: false });
  });

  afterAll(() => server.close());

  it('answers a batch without MCP-Protocol-Version (2025-03-26 is assumed)', async () => {
    const res = await post(server.base, pings(2));
    expect(res.status).toBe(200);
    expect(res.json).toEqual(pings(2).map(({ id }) => ({ jsonrpc: '2.0', id, result: {} })));
  });

  it('refuses a batch whose MCP-Protocol-Version has no batches, with 400 and -32600', async () => {
    const res = await post(server.base, pings(2), { 'mcp-protocol-version': '2025-06-18' });
    expect(res).toEqual({ status: 400, json: invalidRequest(/batches are not part of revision 2025-06-18/) });
  });

  it('refuses a batch longer than the default maxBatchLength (32)', async () => {
    const res = await post(server.base, pings(33));
    expect(res).toEqual({ status: 400, json: invalidRequest(/at most 32 messages/) });
  });

  it('never takes initialize inside a batch', async () => {
    const res = await post(server.base, [{ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }]);
    expect(res).toEqual({ status: 400, json: invalidRequest(/initialize must not be part of a batch/) });
  });
});

// Issue 12, item 2: at the session bound a new session is refused (503 + Retry-After), never made room for by ending
// someone else's; one caller cannot take every session.
import http from 'node:http';
import {
  HTTP_MOUNTS,
  HardeningApp,
  headerAuthenticator,
  startHardeningApp,
} from './scenarios/http-hardening/hardening.app';

const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const REVISION = '2025-11-25';

interface Answer {
  status: number;
  headers: Headers;
  json: { id?: unknown; result?: unknown; error?: { code: number; message: string } } | undefined;
}

async function post(base: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { ...POST_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

const initializeMessage = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'cap-test', version: '1' } },
};

// Opens a session; resolves its id, or the answer that refused it.
async function openSession(base: string, headers: Record<string, string> = {}): Promise<string | Answer> {
  const res = await post(base, initializeMessage, headers);
  const id = res.headers.get('mcp-session-id');
  if (res.status !== 200 || !id) return res;
  const sessionHeaders = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': REVISION };
  expect((await post(base, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders)).status).toBe(202);
  return id;
}

async function ping(base: string, sessionId: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await post(
    base,
    { jsonrpc: '2.0', id: 7, method: 'ping' },
    {
      ...headers,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': REVISION,
    },
  );
  return res.status;
}

function expectRefused(answer: string | Answer, message: RegExp, retryAfter: string): void {
  expect(typeof answer).toBe('object');
  const res = answer as Answer;
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe(retryAfter);
  expect(res.headers.get('mcp-session-id')).toBeNull();
  expect(res.json).toEqual({ jsonrpc: '2.0', id: 0, error: { code: -32000, message: expect.stringMatching(message) } });
}

// An HTTP+SSE GET: resolves the status, and the body when it is not a stream (the stream is closed at once).
function openSse(port: number): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/sse', headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode === 200) {
        resolve({ status: 200, headers: res.headers, body: '' });
        return void res.destroy();
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

describe.each(HTTP_MOUNTS)('the session bound ($name)', (mount) => {
  let server: HardeningApp | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('refuses a new session past maxSessions with 503 and Retry-After, and ends none of the others', async () => {
    server = await startHardeningApp(mount, { maxSessions: 2, retryAfterSeconds: 7, legacySse: false });
    const first = (await openSession(server.base)) as string;
    const second = (await openSession(server.base)) as string;
    expect([typeof first, typeof second]).toEqual(['string', 'string']);

    expectRefused(await openSession(server.base), /as many sessions open as it allows/, '7');
    // The sessions already open were not evicted to make room.
    expect(await ping(server.base, first)).toBe(200);
    expect(await ping(server.base, second)).toBe(200);

    // Ending one makes room.
    const ended = await fetch(`${server.base}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': first, 'mcp-protocol-version': REVISION },
    });
    expect(ended.status).toBe(204);
    expect(typeof (await openSession(server.base))).toBe('string');
    expect(await ping(server.base, second)).toBe(200);
  });

  it('refuses a principal past maxSessionsPerPrincipal while others still get sessions', async () => {
    server = await startHardeningApp(mount, {
      maxSessions: 10,
      maxSessionsPerPrincipal: 2,
      authenticator: headerAuthenticator,
      legacySse: false,
    });
    const mallory = { 'x-user': 'mallory' };
    const held = [await openSession(server.base, mallory), await openSession(server.base, mallory)];
    expect(held.map((id) => typeof id)).toEqual(['string', 'string']);
    expectRefused(await openSession(server.base, mallory), /this client has as many sessions/, '30');
    expect(typeof (await openSession(server.base, { 'x-user': 'alice' }))).toBe('string');
    for (const id of held) expect(await ping(server.base, id as string, mallory)).toBe(200);
  });

  it('counts anonymous callers by their address', async () => {
    server = await startHardeningApp(mount, { maxSessions: 10, maxSessionsPerPrincipal: 2, legacySse: false });
    expect(typeof (await openSession(server.base))).toBe('string');
    expect(typeof (await openSession(server.base))).toBe('string');
    expectRefused(await openSession(server.base), /this client has as many sessions/, '30');
  });

  it('makes room by ending a session idle past sessionIdleMs', async () => {
    server = await startHardeningApp(mount, { maxSessions: 1, sessionIdleMs: 200, legacySse: false });
    const idle = (await openSession(server.base)) as string;
    expect(typeof idle).toBe('string');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(typeof (await openSession(server.base))).toBe('string');
    expect(await ping(server.base, idle)).toBe(404);
  });

  it('refuses a new HTTP+SSE session past maxSessions the same way', async () => {
    server = await startHardeningApp(mount, { maxSessions: 1, retryAfterSeconds: 3 });
    const sessionId = (await openSession(server.base)) as string;
    const refused = await openSse(server.port);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('3');
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/as many sessions open as it allows/) },
    });
    expect(await ping(server.base, sessionId)).toBe(200);
  });
});

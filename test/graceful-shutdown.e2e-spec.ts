import http from 'node:http';
import type { Socket } from 'node:net';
import { MODERN_META, ScenarioProcess } from './scenarios/scenario.process';
import { SHUTDOWN_APP } from './scenarios/shutdown/shutdown.app';

// Each test starts the scenario app on ts-node, which compiles the app and the libs at start.
jest.setTimeout(120_000);

const GRACE_MS = 3_000;
// The shutdown's own step after the grace period (SHUTDOWN_SETTLE_MS), and room for a slow, shared machine.
const SETTLE_MS = 1_000;
const MARGIN_MS = 10_000;

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

/** A modern-era `tools/call` POSTed on a connection of its own. */
function callTool(port: number, id: number, name: string, args: Record<string, unknown>): Promise<Reply> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: MODERN_META },
  });
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': name,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** A legacy HTTP+SSE (2024-11-05) stream: resolves once its `endpoint` event arrived; `closedAt` once it ends. */
function openLegacySse(port: number): Promise<{ closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path: '/sse', agent: false, headers: { accept: 'text/event-stream' } },
      (response) => {
        const closed = new Promise<number>((done) => response.once('close', () => done(Date.now())));
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('event: endpoint')) resolve({ closed });
        });
        response.on('error', () => undefined);
      },
    );
    request.on('error', reject);
  });
}

/** A keep-alive connection left idle after one answered request; resolves with when it closes. */
async function idleKeepAliveConnection(port: number): Promise<{ closed: Promise<number> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let socket: Socket | undefined;
  await new Promise<void>((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve());
      },
    );
    request.on('socket', (assigned: Socket) => (socket = assigned));
    request.on('error', reject);
    request.end(JSON.stringify({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: { _meta: MODERN_META } }));
  });
  const closed = new Promise<number>((resolve) => socket!.once('close', () => resolve(Date.now())));
  return { closed };
}

function connectionRefused(port: number): Promise<string> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/mcp', agent: false }, (response) => {
      response.resume();
      resolve(`answered ${response.statusCode}`);
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const MOUNTS = [
  ['the server mount (Express adapter)', 'express', 'server'],
  ['an Express route', 'express', 'express'],
  ['a Fastify route', 'fastify', 'fastify'],
] as const;

describe.each(MOUNTS)('graceful shutdown over HTTP, %s', (_title, adapter, mount) => {
  let server: ScenarioProcess;

  afterEach(() => server.stop());

  it('ends on SIGTERM within the grace period with exit code 0, cancelling what runs and closing every stream', async () => {
    server = new ScenarioProcess(SHUTDOWN_APP, {
      args: ['--adapter', adapter, '--mount', mount],
      env: { SHUTDOWN_GRACE_MS: String(GRACE_MS) },
    });
    await server.waitFor(() => /listening \d+/.test(server.stderr), 'the server to listen');
    const port = Number(/listening (\d+)/.exec(server.stderr)![1]);
    // The requestState warning concerns HTTP endpoints, served here.
    expect(server.output).toContain('requestState is sealed with a random per-process key');

    const idle = await idleKeepAliveConnection(port);
    const sse = await openLegacySse(port);
    const waiting = callTool(port, 1, 'wait', { ms: 60_000 });
    // A handler that ignores its cancellation (and keeps a timer running) cannot hold the process either.
    const stubborn = callTool(port, 2, 'stubborn', { ms: 60_000 }).then(
      (reply) => reply,
      (error: NodeJS.ErrnoException) => error.code,
    );
    await server.waitFor(() => server.stderr.includes('started 1') && server.stderr.includes('started 2'), 'the calls');

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    await server.waitFor(() => server.output.includes('shutting down'), 'the shutdown to start');
    expect(await connectionRefused(port)).toBe('ECONNREFUSED');

    const exit = await server.exited;
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    // The call in flight had the grace period to finish; the process ended soon after it.
    expect(exit.at - signalledAt).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(exit.at - signalledAt).toBeLessThan(GRACE_MS + SETTLE_MS + MARGIN_MS);

    // The call was cancelled when the grace period ended: its signal aborted, its client told why.
    expect(server.stderr).toContain('aborted 1: Server shutting down');
    expect(await waiting).toEqual({
      status: 503,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Server is shutting down' } },
    });
    // The handler that never returns lost its connection.
    expect(await stubborn).toBe('ECONNRESET');
    // The idle keep-alive connection was closed at once, the SSE stream once the grace period was over.
    const [idleClosedAt, sseClosedAt] = await Promise.all([idle.closed, sse.closed]);
    expect(idleClosedAt).toBeLessThan(sseClosedAt);
    expect(sseClosedAt - signalledAt).toBeGreaterThanOrEqual(GRACE_MS - 100);
  });
});

describe('graceful shutdown over stdio', () => {
  let server: ScenarioProcess;

  afterEach(() => server.stop());

  const call = (id: number, name: string, ms: number) =>
    server.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { ms }, _meta: MODERN_META } });

  it('ends on SIGTERM within the grace period with exit code 0, refusing new requests meanwhile', async () => {
    server = new ScenarioProcess(SHUTDOWN_APP, { args: ['--stdio'], env: { SHUTDOWN_GRACE_MS: String(GRACE_MS) } });
    call(1, 'wait', 60_000);
    call(2, 'stubborn', 60_000);
    await server.waitFor(() => server.stderr.includes('started 1') && server.stderr.includes('started 2'), 'the calls');

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    await server.waitFor(() => server.stderr.includes('shutting down'), 'the shutdown to start');
    call(3, 'wait', 1);
    expect(await server.response(3)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32000, message: 'Server is shutting down' },
    });

    const exit = await server.exited;
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(exit.at - signalledAt).toBeLessThan(GRACE_MS + SETTLE_MS + MARGIN_MS);
    expect(server.stderr).toContain('aborted 1: Server shutting down');
  });

  it('ends promptly when stdin ends, without waiting for the grace period, whatever runs', async () => {
    const longGraceMs = 60_000;
    server = new ScenarioProcess(SHUTDOWN_APP, { args: ['--stdio'], env: { SHUTDOWN_GRACE_MS: String(longGraceMs) } });
    call(1, 'wait', 120_000);
    call(2, 'stubborn', 120_000);
    await server.waitFor(() => server.stderr.includes('started 1') && server.stderr.includes('started 2'), 'the calls');

    const endedAt = Date.now();
    server.child.stdin.end();
    const exit = await server.exited;
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    expect(exit.at - endedAt).toBeLessThan(SETTLE_MS + MARGIN_MS);
    // The client that closed stdin is gone: its calls were cancelled with their session.
    expect(server.stderr).toContain('aborted 1: Session ended');
  });
});

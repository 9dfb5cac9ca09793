import { Injectable, INestApplication, Module } from '@nestjs/common';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { EventStore, InMemoryEventStore, McpCtx, McpModule, McpRequestContext, McpTool } from '@conduit-mcp/server';
import { HttpAdapterName, createHttpApp } from './support/http-adapters';

const MiB = 1024 * 1024;
const JSON_AND_SSE = 'application/json, text/event-stream';

/** What the tools report to the test: the server's sockets, sampled while a tool writes. */
class Probe {
  static sockets = new Set<Socket>();
  static peakUnsent = 0;
  static finished: () => void = () => undefined;

  static sample(): void {
    for (const socket of Probe.sockets) Probe.peakUnsent = Math.max(Probe.peakUnsent, socket.writableLength);
  }
}

@Injectable()
class Talkative {
  /** Logs `chunks` entries of 256 KiB, letting the event loop turn between them, sampling the sockets after each. */
  @McpTool({ name: 'flood' })
  async flood(@McpCtx() ctx: McpRequestContext) {
    const entry = 'f'.repeat(256 * 1024);
    for (let n = 0; n < 96; n++) {
      ctx.log('info', entry);
      Probe.sample();
      await new Promise((resolve) => setImmediate(resolve));
    }
    Probe.finished();
    return 'flooded';
  }

  /** A reply of about 3 MiB, after a log line so that it goes out on a resumable SSE stream. */
  @McpTool({ name: 'big_reply' })
  bigReply(@McpCtx() ctx: McpRequestContext) {
    ctx.log('info', 'here it comes');
    return 'r'.repeat(3 * MiB);
  }

  /** The same reply once `Held.release()` was called: the client may be gone by then. */
  @McpTool({ name: 'held_reply' })
  async heldReply(@McpCtx() ctx: McpRequestContext) {
    ctx.log('info', 'here it comes');
    await Held.released;
    return 'r'.repeat(3 * MiB);
  }
}

const Held = (() => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { released, release };
})();

async function startApp(adapter: HttpAdapterName, mount: 'express' | 'fastify' | undefined): Promise<INestApplication> {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'bounds',
        version: '1',
        http: { mount, maxSseBufferBytes: MiB, legacySse: false },
      }),
    ],
    providers: [Talkative],
  })
  class BoundsModule {}
  const app = await createHttpApp(BoundsModule, adapter);
  await app.listen(0, '127.0.0.1');
  (app.getHttpServer() as Server).on('connection', (socket: Socket) => {
    Probe.sockets.add(socket);
    socket.on('close', () => Probe.sockets.delete(socket));
  });
  return app;
}

async function openSession(url: string): Promise<Record<string, string>> {
  const headers = { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-protocol-version': '2025-11-25' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'slow', version: '1' } },
    }),
  });
  await init.text();
  const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')! };
  const initialized = await fetch(url, {
    method: 'POST',
    headers: session,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  return session;
}

/** POSTs a tools/call and, once the SSE head arrived, stops reading the response. */
function callWithoutReading(url: string, headers: Record<string, string>, tool: string, id = 2) {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: {} } });
  let request!: ClientRequest;
  const head = new Promise<IncomingMessage>((resolve, reject) => {
    request = httpRequest(url, { method: 'POST', headers }, (response) => {
      response.pause();
      resolve(response);
    });
    request.on('error', reject);
    request.end(body);
  });
  return { head, stop: () => request.destroy() };
}

describe.each<[string, HttpAdapterName, 'express' | 'fastify' | undefined]>([
  ['server mount', 'express', undefined],
  ['Express mount', 'express', 'express'],
  ['Fastify mount', 'fastify', 'fastify'],
])('an SSE client that stops reading (%s)', (_name, adapter, mount) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await startApp(adapter, mount);
    url = `${await app.getUrl()}/mcp`;
  });

  afterAll(() => app.close());

  it('is cut off once http.maxSseBufferBytes wait unread; the server does not buffer the rest', async () => {
    const session = await openSession(url);
    Probe.peakUnsent = 0;
    const finished = new Promise<void>((resolve) => (Probe.finished = resolve));
    const call = callWithoutReading(url, session, 'flood');
    const response = await call.head;
    expect(response.headers['content-type']).toBe('text/event-stream');
    // 24 MiB of log entries went to a client that read none of them.
    await finished;
    // Bounded by the budget and one entry (plus SSE framing), where the hard-coded bound let 8 MiB pile up.
    expect(Probe.peakUnsent).toBeGreaterThan(0);
    expect(Probe.peakUnsent).toBeLessThan(MiB + 512 * 1024);
    // The connection was closed by the server: nothing of it is left on the server.
    expect([...Probe.sockets].every((socket) => socket.writableLength < MiB)).toBe(true);
    call.stop();
  });
});

describe('replies kept for resumption (server mount)', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await startApp('express', undefined);
    url = `${await app.getUrl()}/mcp`;
  });

  afterAll(() => app.close());

  const bigReply = (session: Record<string, string>, id: number) =>
    fetch(url, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'big_reply' } }),
    });

  async function until(condition: () => boolean): Promise<void> {
    for (let waited = 0; !condition() && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  }

  it('stay within the default event store budget of a session, however many a session leaves undelivered', async () => {
    const session = await openSession(url);
    const store = app.get<InMemoryEventStore>(EventStore);
    // 10 replies whose client went away after the head: each is recorded for a resumption that may come.
    for (let n = 0; n < 10; n++) {
      const call = callWithoutReading(url, session, 'held_reply', 10 + n);
      expect((await call.head).headers['content-type']).toBe('text/event-stream');
      call.stop();
    }
    Held.release();
    // 10 replies of 3 MiB were recorded; the default store keeps at most 16 MiB of one session.
    await until(() => store.bytes > 3 * MiB);
    expect(store.bytes).toBeLessThanOrEqual(16 * MiB);
    // A reply the client read whole leaves nothing to resume: the store forgets it.
    const kept = store.bytes;
    const whole = await bigReply(session, 30);
    expect((await whole.text()).length).toBeGreaterThan(3 * MiB);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.bytes).toBeLessThanOrEqual(kept);
  });
});

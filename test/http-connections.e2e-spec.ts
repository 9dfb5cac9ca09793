// Issue 12, item 4: the app's HTTP server closes idle and slow connections, and caps connections in all and per
// client address with a readable refusal.
import http from 'node:http';
import net from 'node:net';
import { HTTP_MOUNTS, HardeningApp, startHardeningApp } from './scenarios/http-hardening/hardening.app';

// Timeouts far from every one a test is about, so that only the one under test acts.
const PATIENT = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
};

interface RawConnection {
  socket: net.Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with everything received once the server closed the connection. */
  closed: Promise<string>;
}

function connect(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    const closed = new Promise<string>((done) => socket.on('close', () => done(text)));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// A keep-alive connection the server has answered once (so it has certainly counted it), left open.
async function hold(port: number): Promise<RawConnection> {
  const connection = await connect(port);
  connection.socket.write(`GET /held HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  await waitFor(() => connection.received().includes('\r\n\r\n'), 10_000);
  expect(connection.received()).toMatch(/^HTTP\/1\.1 404/);
  return connection;
}

// A request on a new connection, with Node's HTTP client; resolves the status, headers and body.
function get(
  port: number,
  path = '/held',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

function splitResponse(raw: string): { head: string; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  return { head: raw.slice(0, end), body: raw.slice(end + 4) };
}

describe.each(HTTP_MOUNTS)('connections of the app’s HTTP server ($name)', (mount) => {
  let server: HardeningApp | undefined;
  const sockets: net.Socket[] = [];

  afterEach(async () => {
    sockets.splice(0).forEach((socket) => socket.destroy());
    await server?.close();
    server = undefined;
  });

  const track = (connection: RawConnection) => (sockets.push(connection.socket), connection);

  it('closes a connection on which nothing moves for idleTimeoutMs', async () => {
    server = await startHardeningApp(mount, { connections: { ...PATIENT, idleTimeoutMs: 300 } });
    const silent = track(await connect(server.port));
    let closed = false;
    void silent.closed.then(() => (closed = true));
    await waitFor(() => closed, 5_000); // the header timeout (20 s) is not what closed it
    expect(closed).toBe(true);
  });

  it('keeps a connection whose request waits on the server longer than idleTimeoutMs', async () => {
    server = await startHardeningApp(mount, {
      sessionMode: 'stateless',
      connections: { ...PATIENT, idleTimeoutMs: 300 },
    });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'sleep', arguments: { ms: 1_200 } },
    });
    const res = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'slept' }] } });
  });

  it('answers 408 to a body trickled past requestTimeoutMs and closes the connection', async () => {
    server = await startHardeningApp(mount, {
      connections: { ...PATIENT, headersTimeoutMs: 1_000, requestTimeoutMs: 1_000 },
    });
    const slow = track(await connect(server.port));
    slow.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\n` +
        'Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{',
    );
    // One byte every 100 ms: never idle, never done.
    const trickle = setInterval(() => slow.socket.writable && slow.socket.write(' '), 100);
    try {
      const raw = await Promise.race([
        slow.closed,
        new Promise<string>((_, reject) => setTimeout(() => reject(new Error('not cut off')), 10_000)),
      ]);
      const { head, body } = splitResponse(raw);
      expect(head).toMatch(/^HTTP\/1\.1 408 /);
      // Node's own 408 has no body; the module's says what happened (Fastify answers with its own handler).
      if (mount.adapter === 'express') {
        expect(JSON.parse(body)).toEqual({
          jsonrpc: '2.0',
          error: { code: -32000, message: expect.stringMatching(/^Request Timeout/) },
        });
      }
    } finally {
      clearInterval(trickle);
    }
  });

  it('refuses a connection past maxPerAddress with 503 before reading it, then takes one again', async () => {
    server = await startHardeningApp(mount, {
      connections: { ...PATIENT, max: 10, maxPerAddress: 3 },
      retryAfterSeconds: 4,
    });
    const held = [track(await hold(server.port)), track(await hold(server.port)), track(await hold(server.port))];

    // Read as a raw answer…
    const refused = track(await connect(server.port));
    refused.socket.write(`GET /held HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
    const { head, body } = splitResponse(await refused.closed);
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head).toMatch(/\r\nRetry-After: 4\r\n/i);
    expect(JSON.parse(body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/this client address has as many connections/) },
    });
    // …and by Node's HTTP client, which reads the refusal instead of failing.
    const byClient = await get(server.port);
    expect(byClient.status).toBe(503);
    expect(byClient.headers['retry-after']).toBe('4');

    // The held connections still work, and one closed makes room.
    held[0].socket.write(`GET /held HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
    await waitFor(() => held[0].received().split('HTTP/1.1 404').length === 3, 10_000);
    held[1].socket.destroy();
    let status = 0;
    for (const deadline = Date.now() + 10_000; status !== 404 && Date.now() < deadline;) {
      status = (await get(server.port)).status;
      if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(404);
  });

  it('refuses a connection past max with 503, whatever its address', async () => {
    server = await startHardeningApp(mount, { connections: { ...PATIENT, max: 2, maxPerAddress: 5 } });
    track(await hold(server.port));
    track(await hold(server.port));
    const refused = await get(server.port);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/the server has as many connections open/) },
    });
  });
});

// Issue 12, item 8: a body over the limit gets a 413 the client can read (status and JSON-RPC error), not a broken
// pipe or a reset; the rest of the body is read and dropped within bounds in bytes and time.
import http from 'node:http';
import net from 'node:net';
import { HTTP_MOUNTS, HardeningApp, HttpMount, startHardeningApp } from './scenarios/http-hardening/hardening.app';

const TRIES = 10;
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
// Far past both limits: the transport's `bodyLimit` below, and the Express mount's own (Nest's JSON parser, 100 kB).
const OVERSIZED = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } });

const tooLarge = {
  jsonrpc: '2.0',
  error: { code: -32000, message: expect.stringMatching(/^Payload Too Large: the body limit is \d+ bytes$/) },
};

interface Answer {
  status: number;
  body: string;
}

// Posts `body` with Node's HTTP client on a fresh connection: whole (Content-Length) or in chunks (chunked encoding).
function postWithHttp(port: number, body: string, chunked: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { ...POST_HEADERS };
    if (!chunked) headers['content-length'] = Buffer.byteLength(body);
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (!chunked) return void req.end(body);
    for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.slice(at, at + 64 * 1024));
    req.end();
  });
}

// Posts a body of `size` bytes on a raw connection (declared, or chunked: then the server finds it too large only
// once it has read past the limit) and, busy elsewhere, reads nothing for a while; resolves everything it could read.
// A connection reset meanwhile (the server closing on unread data) loses the answer, as it does for a loaded client.
function postThenRead(port: number, size: number, chunked: boolean, body = Buffer.alloc(size, 0x20)): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.pause();
      const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`;
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\n${framing}\r\n\r\n`,
      );
      socket.write(
        chunked ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]) : body,
      );
      setTimeout(() => socket.resume(), 300);
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      // A whole answer read: done, whether or not the server keeps the connection.
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, end + 2));
      if (end !== -1 && length && Buffer.byteLength(text.slice(end + 4)) >= Number(length[1])) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
  });
}

// Posts an endless chunked body as fast as the connection takes it; resolves what the client saw once it closed.
function postEndlessly(port: number): Promise<{ status: number | undefined; closedAfterMs: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    let status: number | undefined;
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: POST_HEADERS, agent: false },
      (res) => {
        status = res.statusCode;
        res.resume();
      },
    );
    const chunk = 'x'.repeat(16 * 1024);
    const pump = () => {
      while (!req.destroyed && req.write(chunk));
    };
    req.on('drain', pump);
    req.on('error', () => undefined);
    req.on('close', () => resolve({ status, closedAfterMs: Date.now() - started }));
    pump();
  });
}

// The transport's limit applies on the server and Fastify mounts; on the Express mount, Nest's JSON parser reads the
// body first, under its own limit.
const start = (mount: HttpMount, http: Parameters<typeof startHardeningApp>[1] = {}) =>
  startHardeningApp(mount, { bodyLimit: 1024, legacySse: false, ...http });

describe.each(HTTP_MOUNTS)('a body over the limit ($name)', (mount) => {
  let server: HardeningApp | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it(`is answered 413 with a JSON-RPC error that fetch reads, ${TRIES} tries in a row`, async () => {
    server = await start(mount);
    for (let i = 0; i < TRIES; i++) {
      const res = await fetch(`${server.base}/mcp`, { method: 'POST', headers: POST_HEADERS, body: OVERSIZED });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual(tooLarge);
    }
  });

  it(`is answered 413 with a JSON-RPC error that http.request reads, whole or chunked, ${TRIES} tries each`, async () => {
    server = await start(mount);
    for (const chunked of [false, true]) {
      for (let i = 0; i < TRIES; i++) {
        const res = await postWithHttp(server.port, OVERSIZED, chunked);
        expect(res.status).toBe(413);
        expect(JSON.parse(res.body)).toEqual(tooLarge);
      }
    }
  });

  it(`is answered 413 to a client that reads only after a while, ${TRIES / 2} tries each way`, async () => {
    server = await start(mount);
    for (const chunked of [false, true]) {
      for (let i = 0; i < TRIES / 2; i++) {
        const raw = await postThenRead(server.port, 4 * 1024 * 1024, chunked);
        expect(raw).toMatch(/^HTTP\/1\.1 413 /);
        expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual(tooLarge);
      }
    }
  });

  it('does not read an endless body without end', async () => {
    if (mount.mount === 'express') {
      // Nest's JSON parser reads a refused body to its end before the app answers: the request timeout bounds it.
      server = await start(mount, { connections: { requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 } });
      const seen = await postEndlessly(server.port);
      expect(seen.status).toBe(408);
      expect(seen.closedAfterMs).toBeLessThan(15_000);
      return;
    }
    // In time: a trickle the drain bound in bytes would never reach.
    server = await start(mount, { bodyDrainTimeoutMs: 500, bodyDrainLimit: 1024 * 1024 * 1024 });
    const timed = await postEndlessly(server.port);
    expect(timed.status).toBe(413);
    expect(timed.closedAfterMs).toBeLessThan(15_000);
    await server.close();
    // In bytes: the time bound is far off.
    server = await start(mount, { bodyDrainTimeoutMs: 120_000, bodyDrainLimit: 256 * 1024 });
    const sized = await postEndlessly(server.port);
    expect(sized.closedAfterMs).toBeLessThan(15_000);
  });
});

// The same for a request the authenticator refuses before its body is read: the 401 (with its challenge) is readable.
describe.each(HTTP_MOUNTS)('an authentication refusal before the body ($name)', (mount) => {
  let server: HardeningApp | undefined;
  const refuseAll = {
    authenticate: async () => ({ ok: false as const, status: 401 as const, challenge: 'Bearer realm="e2e"' }),
  };

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it(`is answered 401 with its challenge to a client still sending, ${TRIES / 2} tries each way`, async () => {
    server = await startHardeningApp(mount, { legacySse: false, authenticator: refuseAll });
    // Valid JSON under the Express mount's own parser limit (100 kB): Nest's parser reads it before the authenticator
    // runs. Elsewhere the authenticator answers first, and the body is larger than what Node reads ahead unasked.
    const size = mount.mount === 'express' ? 64 * 1024 : 4 * 1024 * 1024;
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: '' } }));
    const padded = Buffer.concat([body.subarray(0, -3), Buffer.alloc(size - body.length, 0x78), body.subarray(-3)]);
    for (const chunked of [false, true]) {
      for (let n = 0; n < TRIES / 2; n++) {
        const answer = await postThenRead(server.port, size, chunked, padded);
        expect(answer).toMatch(/^HTTP\/1\.1 401 /);
        expect(answer).toMatch(/\r\nwww-authenticate: Bearer realm="e2e"\r\n/i);
        expect(answer).toContain('"code":-32000');
      }
    }
  });
});

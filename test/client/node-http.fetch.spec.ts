import { nodeHttpFetch } from '../../libs/client/src/transports/node-http.fetch';
import { RawServer, json, sseEvent, sseHead, startRawServer } from './transport-test.fixtures';

describe('nodeHttpFetch', () => {
  let server: RawServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends the method, headers and string body, and answers status, headers and body like fetch', async () => {
    server = await startRawServer((req, res, body) =>
      json(res, 201, { echoed: body, auth: req.headers.authorization }, { 'X-Extra': 'yes' }),
    );
    const headers = new Headers({ Authorization: 'Bearer t', 'Content-Type': 'application/json' });
    const response = await nodeHttpFetch(server.url, { method: 'POST', headers, body: '{"a":1}' });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(await response.json()).toEqual({ echoed: '{"a":1}', auth: 'Bearer t' });
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      headers: { 'content-length': '7', 'content-type': 'application/json' },
    });
  });

  it('streams a body of unknown length as it arrives (an SSE stream), before the server ends it', async () => {
    let finish: () => void = () => undefined;
    server = await startRawServer((_req, res) => {
      sseHead(res);
      res.write(sseEvent({ n: 1 }, { id: '1' }));
      finish = () => res.end(sseEvent({ n: 2 }));
    });
    const response = await nodeHttpFetch(server.url, { headers: { accept: 'text/event-stream' } });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toContain('"n":1');
    finish();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += Buffer.from(chunk.value).toString();
    expect(rest).toContain('"n":2');
  });

  it('reads a large body whole (streamed past the eager size)', async () => {
    const big = 'x'.repeat(300_000);
    server = await startRawServer((_req, res) => json(res, 200, { big }));
    const response = await nodeHttpFetch(server.url, { method: 'POST', body: '{}' });
    expect(((await response.json()) as { big: string }).big).toHaveLength(300_000);
  });

  it('gives a 204 a null body, and does not follow redirects', async () => {
    server = await startRawServer((req, res) => {
      if (req.url === '/mcp') return void res.writeHead(307, { Location: '/elsewhere' }).end();
      res.writeHead(204).end();
    });
    const redirect = await nodeHttpFetch(server.url, { method: 'POST', body: '{}' });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('location')).toBe('/elsewhere');
    const empty = await nodeHttpFetch(new URL('/other', server.url));
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    expect(server.requests.map((r) => r.url)).toEqual(['/mcp', '/other']);
  });

  it("rejects with the signal's reason when aborted before the answer, and errors the body when aborted during it", async () => {
    server = await startRawServer((req, res) => {
      if (req.url === '/mcp') return; // never answers
      sseHead(res);
      res.write(sseEvent({ n: 1 }));
    });
    const early = new AbortController();
    const pending = nodeHttpFetch(server.url, { method: 'POST', body: '{}', signal: early.signal });
    setTimeout(() => early.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    const late = new AbortController();
    const response = await nodeHttpFetch(new URL('/stream', server.url), { signal: late.signal });
    const reader = response.body!.getReader();
    await reader.read();
    late.abort();
    await expect(reader.read()).rejects.toBeDefined();

    const already = AbortSignal.abort(new Error('stop'));
    await expect(nodeHttpFetch(server.url, { signal: already })).rejects.toThrow('stop');
  });

  it("fails like fetch on a network error: TypeError('fetch failed') with the cause", async () => {
    server = await startRawServer((_req, res) => json(res, 200, {}));
    const { port } = server;
    await server.close();
    server = undefined;
    const failure = await nodeHttpFetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('sends a request again, once, on a new socket when the server dropped the reused keep-alive socket', async () => {
    const perSocket = new Map<unknown, number>();
    server = await startRawServer((req, res) => {
      const seen = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, seen);
      if (seen > 1) return void req.socket.destroy(); // as if the idle socket had been closed under the request
      json(res, 200, { ok: true });
    });
    expect(await (await nodeHttpFetch(server.url, { method: 'POST', body: '{}' })).json()).toEqual({ ok: true });
    expect(await (await nodeHttpFetch(server.url, { method: 'POST', body: '{}' })).json()).toEqual({ ok: true });
    expect(server.requests).toHaveLength(3);
    expect(perSocket.size).toBe(2);
  });

  it('refuses what it does not implement with a clear error', async () => {
    await expect(nodeHttpFetch('file:///etc/passwd')).rejects.toThrow('unsupported protocol file:');
    await expect(nodeHttpFetch('http://127.0.0.1:1/', { method: 'POST', body: new Uint8Array([1]) })).rejects.toThrow(
      'string bodies only',
    );
  });
});

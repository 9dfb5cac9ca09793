import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo, Server as TcpServer, createServer as createTcpServer } from 'node:net';
import { GuardedFetch, RefusedUrlError, createGuardedFetch } from './guarded.fetch';
import { rejectionOf } from '../../../../test/support/canned-json.server';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const CAP = 1024;

describe('createGuardedFetch', () => {
  let server: Server;
  let port: number;
  let base: string;
  const seen: Seen[] = [];
  // Accepts TCP connections and drops them: where an https request would connect, it counts whether one did.
  let tcp: TcpServer;
  let tcpPort: number;
  let tcpConnections = 0;

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/ok': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'x-answer': 'yes' }).end('hello'),
    '/echo': (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen.at(-1))),
    '/empty': (_req, res) => res.writeHead(204).end(),
    '/to-metadata': (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    '/to-ok': (_req, res) => res.writeHead(302, { location: '/ok' }).end('moved'),
    '/to-localhost-echo': (_req, res) => res.writeHead(307, { location: `http://localhost:${port}/echo` }).end(),
    '/to-echo': (_req, res) => res.writeHead(308, { location: '/echo' }).end(),
    '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
    '/big': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('x'.repeat(CAP));
      res.end('y');
    },
    // Declares too much, sends a byte and holds: only the declared length can refuse it before the deadline.
    '/big-declared': (_req, res) => res.writeHead(200, { 'content-length': String(CAP + 1) }).write('z'),
    '/at-cap': (_req, res) => res.writeHead(200).end('x'.repeat(CAP)),
    '/silent': () => undefined,
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = new URL(req.url!, 'http://x').pathname;
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
        (routes[path] ?? ((_req, r) => r.writeHead(404).end()))(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    tcp = createTcpServer((socket) => {
      tcpConnections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    tcpPort = (tcp.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await new Promise((resolve) => tcp.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    tcpConnections = 0;
  });

  const loopback = (options: Parameters<typeof createGuardedFetch>[0] = {}): GuardedFetch =>
    createGuardedFetch({ allowInsecureLoopback: true, maxResponseBytes: CAP, ...options });
  const fetchFailure = async (promise: Promise<unknown>): Promise<TypeError> => {
    const error = await rejectionOf(promise, TypeError);
    expect(error.message).toBe('fetch failed');
    return error;
  };
  const refusal = (promise: Promise<unknown>) => rejectionOf(promise, RefusedUrlError);

  describe('protocols, hosts and addresses', () => {
    it('refuses http to 127.0.0.1 without allowInsecureLoopback, and sends nothing', async () => {
      const error = await refusal(createGuardedFetch()(`${base}/ok`));
      expect(error.message).toContain(`Refused ${base}: plain http`);
      expect(error.name).toBe('RefusedUrlError');
      expect(seen).toEqual([]);
    });

    it('fetches http from 127.0.0.1 with allowInsecureLoopback', async () => {
      const response = await loopback()(`${base}/ok`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-answer')).toBe('yes');
      expect(await response.text()).toBe('hello');
      expect(response.url).toBe(`${base}/ok`);
    });

    it('resolves localhost, and allows it with allowInsecureLoopback', async () => {
      const response = await loopback()(new URL(`http://localhost:${port}/ok`));
      expect(await response.text()).toBe('hello');
    });

    it('refuses a host that resolves to loopback when loopback is not allowed, at lookup, before any connection', async () => {
      const error = await refusal(createGuardedFetch()(`https://localhost:${tcpPort}/`));
      expect(error.message).toMatch(
        new RegExp(`^Refused https://localhost:${tcpPort}: .+ is not a public address \\(loopback\\)$`),
      );
      expect(tcpConnections).toBe(0);
    });

    it('refuses a private or link-local IP literal without connecting, whatever the options', async () => {
      const fetchIt = createGuardedFetch({ timeoutMs: 60_000 });
      const started = Date.now();
      expect((await refusal(fetchIt('https://10.1.2.3/'))).message).toBe(
        'Refused https://10.1.2.3: 10.1.2.3 is not a public address (private)',
      );
      expect((await refusal(fetchIt('https://169.254.169.254/latest/meta-data/'))).message).toContain('(linkLocal)');
      expect((await refusal(fetchIt('https://[::ffff:a9fe:a9fe]/'))).message).toContain('(linkLocal)');
      expect((await refusal(fetchIt('https://[fd00::1]/'))).message).toContain('(uniqueLocal)');
      expect((await refusal(loopback()('http://169.254.169.254/'))).message).toContain('plain http');
      expect(Date.now() - started).toBeLessThan(1000);
      await refusal(createGuardedFetch()(`https://127.0.0.1:${tcpPort}/`));
      expect(tcpConnections).toBe(0);
    });

    it('connects to an address inside allowPrivateNetworks (the IP literal, and a host name at lookup)', async () => {
      const fetchIt = createGuardedFetch({ allowPrivateNetworks: ['127.0.0.0/8', '::1/128'] });
      // The drop-everything TCP server cannot speak TLS: the request fails as a network failure, after connecting.
      await fetchFailure(fetchIt(`https://127.0.0.1:${tcpPort}/`));
      expect(tcpConnections).toBe(1);
      await fetchFailure(fetchIt(`https://localhost:${tcpPort}/`));
      expect(tcpConnections).toBe(2);
    });

    it('throws from createGuardedFetch on an invalid CIDR', () => {
      expect(() => createGuardedFetch({ allowPrivateNetworks: ['10.0.0.0/8', '10.0.0.0/40'] })).toThrow(
        'allowPrivateNetworks: "10.0.0.0/40" is not a CIDR',
      );
    });

    it('refuses http to a host that is not loopback even with allowInsecureLoopback', async () => {
      const error = await refusal(loopback()('http://example.com/'));
      expect(error.message).toContain('Refused http://example.com: plain http is allowed only to localhost');
    });

    it('refuses other protocols and URLs with credentials', async () => {
      const fetchIt = loopback();
      expect((await refusal(fetchIt('ftp://example.com/file'))).message).toBe(
        'Refused a ftp: URL: only https is allowed',
      );
      await refusal(fetchIt('data:text/plain,hello'));
      await refusal(fetchIt('file:///etc/passwd'));
      const error = await refusal(fetchIt(`http://user:secret@127.0.0.1:${port}/ok`));
      expect(error.message).toBe(`Refused ${base}: the URL carries credentials`);
      expect(error.message).not.toContain('secret');
      await refusal(fetchIt('https://token@example.com/'));
      expect(seen).toEqual([]);
    });
  });

  describe('redirects', () => {
    it('are returned as they are by default, and not followed', async () => {
      const response = await loopback()(`${base}/to-ok`);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('/ok');
      expect(await response.text()).toBe('moved');
      expect(seen.map((request) => request.url)).toEqual(['/to-ok']);
    });

    it("are followed for a GET with redirect: 'follow'", async () => {
      const response = await loopback()(`${base}/to-ok`, { redirect: 'follow' });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('hello');
      expect(response.url).toBe(`${base}/ok`);
      expect(seen.map((request) => request.url)).toEqual(['/to-ok', '/ok']);
    });

    it('are checked again: a redirect to the cloud metadata address is refused', async () => {
      const error = await refusal(loopback()(`${base}/to-metadata`, { redirect: 'follow' }));
      expect(error.message).toContain('Refused http://169.254.169.254');
      expect(seen.map((request) => request.url)).toEqual(['/to-metadata']);
    });

    it('are never followed for a POST', async () => {
      const response = await loopback()(`${base}/to-echo`, { method: 'POST', body: 'a=1', redirect: 'follow' });
      expect(response.status).toBe(308);
      expect(seen.map((request) => request.url)).toEqual(['/to-echo']);
    });

    it('are followed 3 times at most', async () => {
      const error = await fetchFailure(loopback()(`${base}/loop`, { redirect: 'follow' }));
      expect((error.cause as Error).message).toBe(`More than 3 redirects; the last one from ${base}`);
      expect(seen).toHaveLength(4);
    });

    it('keep the headers on the same origin and drop credentials when leaving it', async () => {
      const headers = { authorization: 'Bearer secret', 'x-kept': 'yes' };
      const same = await loopback()(`${base}/to-echo`, { headers, redirect: 'follow' });
      expect(((await same.json()) as Seen).headers).toMatchObject(headers);
      const other = await loopback()(`${base}/to-localhost-echo`, { headers, redirect: 'follow' });
      const echoed = (await other.json()) as Seen;
      expect(echoed.headers['x-kept']).toBe('yes');
      expect(echoed.headers.authorization).toBeUndefined();
    });
  });

  describe('bodies, headers and limits', () => {
    it('sends a URLSearchParams body with its content-length, and adds no header of its own', async () => {
      const body = new URLSearchParams({ grant_type: 'authorization_code', code: 'é&=' });
      const response = await loopback()(`${base}/echo`, {
        method: 'POST',
        headers: new Headers({ 'content-type': 'application/x-www-form-urlencoded', 'x-custom': '1' }),
        body,
      });
      const echoed = (await response.json()) as Seen;
      expect(echoed.method).toBe('POST');
      expect(echoed.body).toBe(body.toString());
      expect(echoed.headers['content-length']).toBe(String(Buffer.byteLength(body.toString())));
      // host and connection are Node's own; nothing else is added.
      expect(Object.keys(echoed.headers).sort()).toEqual([
        'connection',
        'content-length',
        'content-type',
        'host',
        'x-custom',
      ]);
    });

    it('sends string and Uint8Array bodies, headers given as a record or as pairs', async () => {
      const fetchIt = loopback();
      const text = (await (
        await fetchIt(`${base}/echo`, { method: 'POST', headers: { 'X-Record': 'r' }, body: '{"naïve":true}' })
      ).json()) as Seen;
      expect(text.body).toBe('{"naïve":true}');
      expect(text.headers['content-length']).toBe(String(Buffer.byteLength('{"naïve":true}')));
      expect(text.headers['x-record']).toBe('r');
      const bytes = (await (
        await fetchIt(`${base}/echo`, {
          method: 'POST',
          headers: [['x-pair', 'p']],
          body: new TextEncoder().encode('bytes'),
        })
      ).json()) as Seen;
      expect(bytes.body).toBe('bytes');
      expect(bytes.headers['content-length']).toBe('5');
      expect(bytes.headers['x-pair']).toBe('p');
      await expect(fetchIt(`${base}/echo`, { body: 'x' })).rejects.toThrow(TypeError);
    });

    it('reads a body up to maxResponseBytes, and rejects past it', async () => {
      const fetchIt = loopback();
      expect((await (await fetchIt(`${base}/at-cap`)).text()).length).toBe(CAP);
      await expect(fetchIt(`${base}/big`)).rejects.toThrow(`The response from ${base} exceeded ${CAP} bytes`);
      await expect(loopback({ timeoutMs: 60_000 })(`${base}/big-declared`)).rejects.toThrow(
        `The response from ${base} exceeded ${CAP} bytes`,
      );
    });

    it('returns a null body for 204', async () => {
      const response = await loopback()(`${base}/empty`);
      expect(response.status).toBe(204);
      expect(response.body).toBeNull();
    });

    it('rejects within timeoutMs when the server never answers, naming the origin', async () => {
      const started = Date.now();
      const failure = loopback({ timeoutMs: 200 })(`${base}/silent`);
      await expect(failure).rejects.toThrow(`Request to ${base} timed out after 200 ms`);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(190);
      expect(elapsed).toBeLessThan(2000);
    });

    it("rejects with the caller's abort reason when its signal aborts", async () => {
      const controller = new AbortController();
      const failure = loopback()(`${base}/silent`, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('caller gave up')), 50);
      await expect(failure).rejects.toThrow('caller gave up');
      await expect(loopback()(`${base}/ok`, { signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow(
        'already',
      );
    });

    it("rejects a network failure as fetch does: TypeError('fetch failed') with the cause", async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const error = await fetchFailure(loopback()(`http://127.0.0.1:${closedPort}/`));
      expect(error.cause).toMatchObject({ code: 'ECONNREFUSED' });
    });
  });
});

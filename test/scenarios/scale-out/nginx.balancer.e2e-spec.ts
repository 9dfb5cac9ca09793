import { existsSync } from 'node:fs';
import { IncomingHttpHeaders, Server, createServer, request } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import {
  RoundRobinBalancer,
  RoundRobinOptions,
  parseAccessLine,
  startRoundRobin,
  stopAllBalancers,
} from './nginx.balancer';

const FLOOD_LIMIT = 64 * 1024 * 1024;

/**
 * A node:http backend answering its name; `/sse` streams 3 events 100 ms apart, `/hold` never ends its answer, `/drop`
 * closes the connection unanswered, `/flood` writes until its stream stalls (no `drain` for 500 ms) or
 * {@link FLOOD_LIMIT} bytes went out.
 */
interface Backend {
  name: string;
  url: string;
  /** `127.0.0.1:<port>`, as nginx logs it. */
  address: string;
  /** The Host header of every request seen, in order (`/drop` ones included). */
  hosts: string[];
  /** How `/flood` ended: stalled after `written` bytes, or all {@link FLOOD_LIMIT} bytes taken. */
  flooded: Promise<{ stalled: boolean; written: number }>;
  close(): Promise<void>;
}

async function startBackend(name: string): Promise<Backend> {
  const hosts: string[] = [];
  let flooded!: (outcome: { stalled: boolean; written: number }) => void;
  const floodOutcome = new Promise<{ stalled: boolean; written: number }>((resolve) => (flooded = resolve));
  const server: Server = createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    req.resume();
    if (req.url === '/drop') {
      // Fails after the request reached it: nginx may pass it on only if it is idempotent.
      return void req.on('end', () => req.socket.destroy());
    }
    if (req.url === '/hold') {
      return void res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
    }
    if (req.url === '/flood') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024);
      let written = 0;
      const pump = () => {
        while (written < FLOOD_LIMIT) {
          written += chunk.length;
          if (!res.write(chunk)) {
            const stalled = setTimeout(() => flooded({ stalled: true, written }), 500);
            return void res.once('drain', () => {
              clearTimeout(stalled);
              pump();
            });
          }
        }
        flooded({ stalled: false, written });
      };
      return pump();
    }
    if (req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let sent = 0;
      const next = () => {
        sent++;
        res.write(`id: ${sent}\ndata: ${name} ${sent}\n\n`);
        if (sent === 3) res.end();
        else setTimeout(next, 100);
      };
      return next();
    }
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(name));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    address: `127.0.0.1:${port}`,
    hosts,
    flooded: floodOutcome,
    close: async () => {
      server.closeAllConnections();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function call(
  lb: RoundRobinBalancer,
  { method = 'GET', path = '/', host, body }: { method?: string; path?: string; host?: string; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = host ? { host } : {};
    const req = request(`${lb.url}${path}`, { method, headers, agent: false, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The access log once it holds `count` lines (nginx writes a line just after the response ends). */
async function accessLogOf(lb: RoundRobinBalancer, count: number) {
  await until(() => lb.accessLog().length >= count, `${count} access-log lines`);
  return lb.accessLog().map(parseAccessLine);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('nginx round-robin balancer', () => {
  let a: Backend;
  let b: Backend;

  beforeEach(async () => {
    [a, b] = await Promise.all([startBackend('A'), startBackend('B')]);
  });

  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  afterAll(stopAllBalancers);

  it('alternates A, B, A, B, by the answers and by the access log', async () => {
    const lb = await startRoundRobin([a.url, b.url]);
    const bodies: string[] = [];
    for (const method of ['GET', 'POST', 'GET', 'POST']) {
      bodies.push((await call(lb, { method, body: method === 'POST' ? '{}' : undefined })).body);
    }

    expect(bodies).toEqual(['A', 'B', 'A', 'B']);
    const log = await accessLogOf(lb, 4);
    expect(log.map((entry) => [entry.method, entry.status, entry.upstreams])).toEqual([
      ['GET', 200, [a.address]],
      ['POST', 200, [b.address]],
      ['GET', 200, [a.address]],
      ['POST', 200, [b.address]],
    ]);
  });

  it('passes an SSE stream on unbuffered: each event arrives when it is sent', async () => {
    const lb = await startRoundRobin([a.url, b.url]);
    const arrivals: number[] = [];
    const { status, body, end } = await new Promise<{ status: number; body: string; end: number }>(
      (resolve, reject) => {
        const req = request(`${lb.url}/sse`, { agent: false, timeout: 10_000 }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => {
            text += chunk;
            const events = text.split('\n\n').length - 1;
            while (arrivals.length < events) arrivals.push(Date.now());
          });
          res.on('end', () => resolve({ status: res.statusCode!, body: text, end: Date.now() }));
        });
        req.on('timeout', () => req.destroy(new Error('the SSE stream timed out')));
        req.on('error', reject).end();
      },
    );

    expect(status).toBe(200);
    expect(body).toBe('id: 1\ndata: A 1\n\nid: 2\ndata: A 2\n\nid: 3\ndata: A 3\n\n');
    expect(arrivals).toHaveLength(3);
    // Sent 100 ms apart: a proxy holding the stream back would deliver them together when it ends.
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(50);
    expect(arrivals[2] - arrivals[1]).toBeGreaterThanOrEqual(50);
    expect(end - arrivals[0]).toBeGreaterThanOrEqual(150);
  });

  it('buffers nothing for a client that does not read: the backend feels the backpressure', async () => {
    const lb = await startRoundRobin([a.url, b.url]);
    const req = request(`${lb.url}/flood`, { agent: false }, () => undefined); // never reads the body
    req.on('error', () => undefined).end();

    // Buffering responses, nginx would take every byte into a temp file (up to 1 GiB) and A would never stall.
    const outcome = await a.flooded;
    req.destroy();
    expect(outcome.stalled).toBe(true);
    expect(outcome.written).toBeLessThan(FLOOD_LIMIT);
  });

  it('passes requests to the other backend once one is closed, a refused POST included', async () => {
    const lb = await startRoundRobin([a.url, b.url]);
    await a.close();

    const answers: Answer[] = [];
    for (const method of ['POST', 'GET', 'POST', 'GET']) {
      answers.push(await call(lb, { method, body: method === 'POST' ? '{}' : undefined }));
    }

    expect(answers.map(({ status, body }) => [status, body])).toEqual([
      [200, 'B'],
      [200, 'B'],
      [200, 'B'],
      [200, 'B'],
    ]);
    const log = await accessLogOf(lb, 4);
    // The refused connection costs one retry; then A is left out.
    expect(log[0]).toMatchObject({ method: 'POST', status: 200, upstreams: [a.address, b.address] });
    expect(log[0].upstreamStatuses).toEqual(['502', '200']);
    expect(log.slice(1).map((entry) => entry.upstreams)).toEqual([[b.address], [b.address], [b.address]]);
  });

  it('never sends a POST twice once a backend got it, and retries a GET once', async () => {
    const post = await call(await startRoundRobin([a.url, b.url]), { method: 'POST', path: '/drop', body: '{}' });
    expect(post.status).toBe(502);
    expect([a.hosts.length, b.hosts.length]).toEqual([1, 0]);

    const lb = await startRoundRobin([a.url, b.url]);
    const got = await call(lb, { path: '/drop' });
    expect(got.status).toBe(502);
    expect([a.hosts.length, b.hosts.length]).toEqual([2, 1]);
    const [entry] = await accessLogOf(lb, 1);
    expect(entry.upstreams).toEqual([a.address, b.address]);
  });

  it('passes the Host header as the client sent it', async () => {
    const lb = await startRoundRobin([a.url, b.url]);
    await call(lb);
    await call(lb, { host: `localhost:${lb.port}` });

    expect(a.hosts).toEqual([`127.0.0.1:${lb.port}`]);
    expect(b.hosts).toEqual([`localhost:${lb.port}`]);
    expect((await accessLogOf(lb, 2)).map((entry) => entry.host)).toEqual([
      `127.0.0.1:${lb.port}`,
      `localhost:${lb.port}`,
    ]);
  });

  it('stop() ends nginx and its worker, with a stream still open, and removes its folder', async () => {
    const lb = await startRoundRobin([a.url, b.url]);
    await call(lb);
    const pids = lb.processes();
    expect(pids.length).toBeGreaterThanOrEqual(2); // the master and its worker
    expect(pids.every(isRunning)).toBe(true);
    const held = new Promise<number>((resolve) => {
      const req = request(`${lb.url}/hold`, { agent: false }, (res) =>
        res.resume().on('close', () => resolve(Date.now())),
      );
      req.on('error', () => resolve(Date.now())).end();
    });
    await until(() => b.hosts.length === 1, 'the held request to reach B');

    const started = Date.now();
    await lb.stop();

    // A fast shutdown, not the SIGKILL that follows 5 s of waiting.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(pids.filter(isRunning)).toEqual([]);
    expect(lb.processes()).toEqual([]);
    expect(existsSync(lb.dir)).toBe(false);
    expect(await refusesConnections(lb.port)).toBe(true);
    expect(await held).toBeGreaterThanOrEqual(started);
    expect(lb.accessLog().map((line) => parseAccessLine(line).upstreams)).toEqual(
      expect.arrayContaining([[a.address]]),
    );
    await lb.stop(); // idempotent
  });

  it('refuses bad backends and sticky sessions with a clear error', async () => {
    await expect(startRoundRobin([])).rejects.toThrow('backends must be a non-empty array');
    await expect(startRoundRobin(['http://localhost:1234'])).rejects.toThrow('must be on 127.0.0.1');
    await expect(startRoundRobin(['http://127.0.0.1'])).rejects.toThrow('explicit port');
    await expect(startRoundRobin(['http://127.0.0.1:1/mcp'])).rejects.toThrow('no path');
    await expect(startRoundRobin([a.url, a.url])).rejects.toThrow('listed twice');
    await expect(startRoundRobin([a.url], { sticky: true } as unknown as RoundRobinOptions)).rejects.toThrow(
      'sticky sessions are not supported',
    );
  });

  it('tells how to get nginx when the binary is missing', async () => {
    const saved = process.env.NGINX_BIN;
    process.env.NGINX_BIN = '/nonexistent/nginx';
    try {
      await expect(startRoundRobin([a.url])).rejects.toThrow('scripts/fetch-nginx.sh');
    } finally {
      if (saved === undefined) delete process.env.NGINX_BIN;
      else process.env.NGINX_BIN = saved;
    }
  });
});

import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const CACHED_ROOT = join(ROOT, '.cache', 'nginx');
const CACHED_BIN = join(CACHED_ROOT, 'usr', 'sbin', 'nginx');
const READY_PATH = '/.nginx-balancer/ready';
const MAX_BACKENDS = 16;
const START_ATTEMPTS = 5;
const READY_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 5_000;
const ACCESS_LOG_MAX_BYTES = 8 * 1024 * 1024;
const STDERR_MAX_CHARS = 16 * 1024;

/** Options of {@link startRoundRobin}. Sessions are never sticky: the scale-out scenarios prove shared state. */
export interface RoundRobinOptions {
  sticky?: false;
}

/** A running nginx balancing round robin over backends on 127.0.0.1. */
export interface RoundRobinBalancer {
  /** `http://127.0.0.1:<port>`, what clients connect to. */
  readonly url: string;
  readonly port: number;
  /** nginx's folder: its config, pid, logs and temp paths (removed by `stop()`). */
  readonly dir: string;
  /** Stops nginx (SIGTERM, SIGKILL after 5 s), waits for its exit and removes its folder. Idempotent. */
  stop(): Promise<void>;
  /**
   * One JSON line per finished request (see {@link AccessLogEntry} and {@link parseAccessLine}), in completion
   * order; after `stop()`, the lines logged until then. nginx writes a line once the response is complete.
   */
  accessLog(): string[];
  /** The nginx processes alive now: the master first, then its workers. Empty once stopped. */
  processes(): number[];
}

/** One access-log line, parsed. */
export interface AccessLogEntry {
  method: string;
  uri: string;
  /** The status the client got. */
  status: number;
  /** Host header as the client sent it (and as it was passed on). */
  host: string;
  /**
   * Every backend tried, in order, as `127.0.0.1:<port>`: more than one when nginx passed the request on after a
   * connection error; the last one answered. Empty when no backend was tried.
   */
  upstreams: string[];
  /** The status each tried backend answered with (`502` / `504` for a failed try), aligned with `upstreams`. */
  upstreamStatuses: string[];
}

interface BinaryLocation {
  bin: string;
  env: NodeJS.ProcessEnv;
}

const running = new Set<Balancer>();
let exitHookInstalled = false;

/**
 * Starts nginx on a free port of 127.0.0.1, balancing round robin over `backends` (HTTP/1.1 with keepalive to them,
 * nothing buffered either way so SSE streams pass through as written, Host passed as the client sent it). A backend
 * that refuses the connection or fails before answering costs one retry on the next backend (at most 2 tries), except
 * for POST, LOCK and PATCH once their request was sent (nginx's default: a non-idempotent request is never sent twice);
 * a POST whose connection was refused is retried. A failed backend is left out for 10 s (nginx's `max_fails=1
 * fail_timeout=10s` defaults). Resolves once this nginx answers on its port; stop every balancer with
 * {@link stopAllBalancers} in `afterAll`.
 *
 * The binary is `NGINX_BIN`, else `.cache/nginx/usr/sbin/nginx` as `scripts/fetch-nginx.sh` leaves it.
 *
 * @example
 * const lb = await startRoundRobin([a.url, b.url]);
 * await fetch(`${lb.url}/mcp`, { method: 'POST', headers, body });
 * expect(lb.accessLog().map((line) => parseAccessLine(line).upstreams.at(-1))).toEqual([a.address]);
 * afterAll(stopAllBalancers);
 */
export async function startRoundRobin(
  backends: string[],
  options: RoundRobinOptions = {},
): Promise<RoundRobinBalancer> {
  const upstreams = checkBackends(backends);
  checkOptions(options);
  const binary = nginxBinary();
  const failures: string[] = [];
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    const balancer = new Balancer(binary, upstreams);
    running.add(balancer);
    installExitHook();
    try {
      await balancer.start();
      return balancer;
    } catch (error) {
      await balancer.stop();
      const message = (error as Error).message;
      failures.push(message);
      // The free port was taken by someone else between probing and nginx binding it: try another.
      if (!/Address already in use/.test(message)) break;
    }
  }
  throw new Error(`nginx did not start:\n${failures.join('\n---\n')}`);
}

/** Stops every balancer still running (for a Jest `afterAll`, so a failed test leaves no nginx behind). */
export async function stopAllBalancers(): Promise<void> {
  await Promise.all([...running].map((balancer) => balancer.stop()));
}

/**
 * Parses one line of {@link RoundRobinBalancer.accessLog}.
 *
 * @example
 * const served = lb.accessLog().map((line) => parseAccessLine(line).upstreams.at(-1));
 */
export function parseAccessLine(line: string): AccessLogEntry {
  let raw: Record<string, string>;
  try {
    raw = JSON.parse(line) as Record<string, string>;
  } catch {
    throw new Error(`not an access-log line of the balancer: ${JSON.stringify(line)}`);
  }
  // nginx joins tries with ", " and internal redirects with " : "; the balancer makes no internal redirects.
  const list = (value: string) => (value === '' ? [] : value.split(/, | : /));
  return {
    method: raw.method,
    uri: raw.uri,
    status: Number(raw.status),
    host: raw.host,
    upstreams: list(raw.upstream),
    upstreamStatuses: list(raw.upstreamStatus),
  };
}

/** Where the nginx binary is and the environment it runs with; throws how to fetch it when it is missing. */
export function nginxBinary(): BinaryLocation {
  const configured = process.env.NGINX_BIN;
  if (configured) {
    if (!existsSync(configured)) {
      throw new Error(
        `NGINX_BIN is ${configured}, which does not exist: fix it, or unset it and run scripts/fetch-nginx.sh`,
      );
    }
    return { bin: configured, env: process.env };
  }
  if (!existsSync(CACHED_BIN)) {
    throw new Error(
      `nginx not found at ${CACHED_BIN}: run scripts/fetch-nginx.sh (downloads Debian's nginx without root), ` +
        'or set NGINX_BIN to an nginx binary',
    );
  }
  // fetch-nginx.sh unpacks the libraries this system lacks next to the binary.
  const libraryDirs = ['lib', join('usr', 'lib')].flatMap((dir) => {
    const path = join(CACHED_ROOT, dir);
    if (!existsSync(path)) return [];
    return readdirSync(path)
      .filter((name) => name.endsWith('-linux-gnu'))
      .map((name) => join(path, name));
  });
  const inherited = process.env.LD_LIBRARY_PATH ? [process.env.LD_LIBRARY_PATH] : [];
  const env = libraryDirs.length
    ? { ...process.env, LD_LIBRARY_PATH: [...libraryDirs, ...inherited].join(':') }
    : process.env;
  return { bin: CACHED_BIN, env };
}

function checkOptions(options: RoundRobinOptions): void {
  if (typeof options !== 'object' || options === null) throw new Error('startRoundRobin: options must be an object');
  for (const key of Object.keys(options)) {
    if (key !== 'sticky') throw new Error(`startRoundRobin: unknown option '${key}' (known: sticky)`);
  }
  if (options.sticky !== undefined && options.sticky !== false) {
    throw new Error('startRoundRobin: sticky sessions are not supported (the scenarios prove that state is shared)');
  }
}

/** `host:port` of each backend, checked: plain `http://127.0.0.1:<port>` URLs (tests use no other address). */
function checkBackends(backends: string[]): string[] {
  if (!Array.isArray(backends) || backends.length === 0) {
    throw new Error('startRoundRobin: backends must be a non-empty array of URLs');
  }
  if (backends.length > MAX_BACKENDS) {
    throw new Error(`startRoundRobin: at most ${MAX_BACKENDS} backends, got ${backends.length}`);
  }
  const seen = new Set<string>();
  return backends.map((backend) => {
    let url: URL;
    try {
      url = new URL(backend);
    } catch {
      throw new Error(`startRoundRobin: backend ${JSON.stringify(backend)} is not a URL`);
    }
    if (url.protocol !== 'http:') throw new Error(`startRoundRobin: backend ${backend} must be http:`);
    // An address, not a name: nginx would make one upstream server of every address a name resolves to.
    if (url.hostname !== '127.0.0.1') {
      throw new Error(`startRoundRobin: backend ${backend} must be on 127.0.0.1 (an address, not a name)`);
    }
    if (url.port === '') throw new Error(`startRoundRobin: backend ${backend} needs an explicit port`);
    if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
      throw new Error(`startRoundRobin: backend ${backend} must be only scheme, address and port (no path)`);
    }
    const address = `${url.hostname}:${url.port}`;
    if (seen.has(address)) throw new Error(`startRoundRobin: backend ${backend} is listed twice`);
    seen.add(address);
    return address;
  });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when a test run ends without `afterAll` (an uncaught error): nothing may outlive the run.
  process.once('exit', () => {
    for (const balancer of running) balancer.kill();
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function nginxConfig(dir: string, port: number, upstreams: string[], token: string): string {
  const path = (name: string) => JSON.stringify(join(dir, name));
  const logFormat = [
    `"method":"$request_method"`,
    `"uri":"$request_uri"`,
    `"status":"$status"`,
    `"host":"$http_host"`,
    `"upstream":"$upstream_addr"`,
    `"upstreamStatus":"$upstream_status"`,
  ].join(',');
  return `daemon off;
worker_processes 1;
pid ${path('nginx.pid')};
lock_file ${path('nginx.lock')};
error_log ${path('error.log')} notice;

events {
  worker_connections 512;
}

http {
  client_body_temp_path ${path('client_body')};
  proxy_temp_path ${path('proxy')};
  fastcgi_temp_path ${path('fastcgi')};
  uwsgi_temp_path ${path('uwsgi')};
  scgi_temp_path ${path('scgi')};

  log_format balancer escape=json '{${logFormat}}';
  access_log ${path('access.log')} balancer;

  upstream backends {
${upstreams.map((address) => `    server ${address};`).join('\n')}
    keepalive 16;
  }

  server {
    listen 127.0.0.1:${port};

    location = ${READY_PATH} {
      access_log off;
      return 200 '${token}';
    }

    location / {
      proxy_pass http://backends;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The servers check Host against their allowed hosts (DNS-rebinding protection): the client's Host passes.
      proxy_set_header Host $http_host;
      # SSE: every chunk goes on as it arrives, and a POST body streams to the backend.
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
      proxy_connect_timeout 5s;
      # The backends enforce their own body limit, so their answer is what tests see.
      client_max_body_size 0;
      proxy_next_upstream error timeout;
      proxy_next_upstream_tries 2;
    }
  }
}
`;
}

/** The pids whose parent is `pid` (nginx's workers), from /proc. */
function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) follows the command name, which is in parentheses and may hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return children;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function probe(port: number, token: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: READY_PATH, agent: false, timeout: 1_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk.slice(0, 256)));
      response.on('end', () => resolve(response.statusCode === 200 && body === token));
      response.on('error', () => resolve(false));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

class Balancer implements RoundRobinBalancer {
  url = '';
  port = 0;
  dir = '';
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private stderr = '';
  private finalLog?: string[];
  private stopping?: Promise<void>;
  private knownWorkers: number[] = [];

  constructor(
    private readonly binary: BinaryLocation,
    private readonly upstreams: string[],
  ) {}

  async start(): Promise<void> {
    this.dir = await mkdtemp(join(tmpdir(), 'nginx-balancer-'));
    // Run as root, nginx's workers switch to an unprivileged user, who must still reach the temp paths.
    await chmod(this.dir, 0o711);
    this.port = await freePort();
    this.url = `http://127.0.0.1:${this.port}`;
    const token = randomBytes(16).toString('hex');
    const config = join(this.dir, 'nginx.conf');
    await writeFile(config, nginxConfig(this.dir, this.port, this.upstreams, token));
    const child = spawn(this.binary.bin, ['-p', `${this.dir}/`, '-c', config, '-e', join(this.dir, 'error.log')], {
      env: this.binary.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', (error) => {
        this.stderr += `${error.message}\n`;
        resolve();
      });
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_MAX_CHARS);
    });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await probe(this.port, token))) {
      if (this.hasExited()) throw new Error(`nginx exited before answering:\n${this.diagnostics()}`);
      if (Date.now() > deadline) {
        throw new Error(
          `nginx did not answer on port ${this.port} within ${READY_TIMEOUT_MS} ms:\n${this.diagnostics()}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.knownWorkers = childPids(child.pid!);
  }

  accessLog(): string[] {
    if (this.finalLog) return [...this.finalLog];
    return this.readAccessLog();
  }

  processes(): number[] {
    if (!this.child?.pid || this.hasExited()) return [];
    return [this.child.pid, ...childPids(this.child.pid)];
  }

  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  /** SIGKILL to nginx and the workers it had, synchronously (for the process `exit` hook). */
  kill(): void {
    if (!this.child?.pid || this.hasExited()) return;
    for (const pid of [this.child.pid, ...this.knownWorkers]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  }

  private async shutDown(): Promise<void> {
    try {
      if (this.child?.pid && !this.hasExited()) {
        this.knownWorkers = childPids(this.child.pid);
        // SIGTERM is nginx's fast shutdown: a graceful one (SIGQUIT) would wait for open SSE streams to end.
        this.child.kill('SIGTERM');
        const timer = setTimeout(() => this.kill(), STOP_GRACE_MS);
        await this.exited;
        clearTimeout(timer);
        // A killed master leaves its workers behind; after a clean exit this finds none.
        for (const pid of this.knownWorkers) {
          try {
            if (alive(pid)) process.kill(pid, 'SIGKILL');
          } catch {}
        }
      } else if (this.exited) {
        await this.exited;
      }
      if (this.dir) {
        this.finalLog = this.readAccessLog();
        await rm(this.dir, { recursive: true, force: true });
      }
    } finally {
      running.delete(this);
    }
  }

  private hasExited(): boolean {
    return (
      !this.child || this.child.exitCode !== null || this.child.signalCode !== null || this.child.pid === undefined
    );
  }

  /** The last {@link ACCESS_LOG_MAX_BYTES} of the access log, as lines. */
  private readAccessLog(): string[] {
    const path = join(this.dir, 'access.log');
    if (!this.dir || !existsSync(path)) return [];
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, ACCESS_LOG_MAX_BYTES);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      const text = buffer.toString('utf8');
      // Only whole lines: the first may be cut by the byte bound, the last may still be being written.
      const lines = text.slice(0, text.lastIndexOf('\n') + 1).split('\n');
      lines.pop();
      if (length < size) lines.shift();
      return lines;
    } finally {
      closeSync(fd);
    }
  }

  private diagnostics(): string {
    const errorLog = join(this.dir, 'error.log');
    const logged = existsSync(errorLog) ? readFileSync(errorLog, 'utf8').slice(-STDERR_MAX_CHARS) : '';
    return [`binary: ${this.binary.bin}`, this.stderr.trim(), logged.trim()].filter(Boolean).join('\n');
  }
}

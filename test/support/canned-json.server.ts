import { IncomingHttpHeaders, Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

/** What the server answers at one path: a status (200), a JSON body (or `raw` text), a `Location`. */
export interface CannedAnswer {
  status?: number;
  body?: unknown;
  raw?: string;
  location?: string;
}

/** One request the server saw. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/**
 * A server on 127.0.0.1 (port 0) answering each path as a test sets it in `answers` (404 with a JSON error elsewhere),
 * recording every request: the metadata documents of discovery specs.
 */
export class CannedJsonServer {
  readonly answers = new Map<string, CannedAnswer>();
  readonly requests: SeenRequest[] = [];
  base = '';
  private readonly server: Server = createServer((req, res) => {
    this.requests.push({ method: req.method!, url: req.url!, headers: req.headers });
    const answer = this.answers.get(req.url!);
    if (!answer) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (answer.location) headers.location = answer.location;
    res.writeHead(answer.status ?? 200, headers).end(answer.raw ?? JSON.stringify(answer.body ?? {}));
  });

  /** Paths requested, in order. */
  get paths(): string[] {
    return this.requests.map((request) => request.url);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Forgets the answers and the requests (between tests). */
  reset(): void {
    this.answers.clear();
    this.requests.length = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The error `promise` rejects with, checked to be an instance of `type`; fails the test when it resolves. */
export async function rejectionOf<T extends Error>(
  promise: Promise<unknown>,
  type: new (...args: never[]) => T,
): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

/** A CannedJsonServer for the tests of the calling `describe`: started before them, reset after each, then stopped. */
export function useCannedJsonServer(): CannedJsonServer {
  const server = new CannedJsonServer();
  beforeAll(() => server.start());
  afterEach(() => server.reset());
  afterAll(() => server.stop());
  return server;
}

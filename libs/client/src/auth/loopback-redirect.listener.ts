import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import type { McpOAuthOptions } from './mcp-oauth.options';

const HOST = '127.0.0.1';
const DEFAULT_PATH = '/callback';
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
// A browser sends its one request at once; a connection that trickles its headers is not a browser.
const HEADERS_TIMEOUT_MS = 10_000;
const MAX_CONNECTIONS = 16;
const MAX_HEADER_BYTES = 16 * 1024;
// The browser's query values are never written into a page (they are the authorization server's, or anyone's who
// sends a request here): every page is one of these fixed texts.
const PAGES = {
  complete: 'Authorization complete; you can close this window.',
  refused: 'Authorization not completed; you can close this window and return to the application.',
  unexpected: 'No authorization is waiting for this answer; start again from the application.',
  notAnswer: 'This is not an authorization answer.',
  notFound: 'Not found.',
  notAllowed: 'Method not allowed.',
} as const;

interface Waiter {
  accepts(callback: URL): boolean;
  resolve(callback: URL): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The redirect URI of a command-line or desktop client (RFC 8252 §7.3): an HTTP listener on 127.0.0.1 that receives the
 * authorization server's redirect from the person's browser. Several authorizations in a row can use it (a step-up
 * needs a second one); close it when the client ends.
 *
 * @example
 * const redirect = await McpLoopbackRedirect.open();
 * McpClientModule.forRoot({
 *   name: 'my-cli',
 *   servers: [{ id: 'notes', transport: { type: 'http', url: 'https://notes.example.com/mcp', auth: {
 *     ...redirect.authorization((url) => console.error(`Open this URL to authorize: ${url}`)),
 *   } } }],
 * });
 * // …and when the CLI ends:
 * await redirect.close();
 */
export class McpLoopbackRedirect {
  /** `http://127.0.0.1:<port><path>` */
  readonly redirectUri: string;
  private readonly waiters: Waiter[] = [];
  private closed = false;

  private constructor(
    private readonly server: Server,
    private readonly path: string,
    private readonly host: string,
    private readonly timeoutMs: number,
  ) {
    this.redirectUri = `http://${host}${path}`;
  }

  /** Listens on 127.0.0.1, port 0 (or `port`), for the authorization server's redirect at `path` (default '/callback'). */
  static async open(options: { path?: string; port?: number; timeoutMs?: number } = {}): Promise<McpLoopbackRedirect> {
    const path = options.path ?? DEFAULT_PATH;
    if (!/^\/[^?#\s]*$/.test(path)) throw new TypeError(`The redirect path must start with / (no query): ${path}`);
    const server = createServer({
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: HEADERS_TIMEOUT_MS,
      // Node checks both timeouts this often (30 s by default, longer than the timeouts themselves).
      connectionsCheckingInterval: 1_000,
    });
    server.maxConnections = MAX_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const redirect = new McpLoopbackRedirect(server, path, `${HOST}:${port}`, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => redirect.answer(req, res));
    return redirect;
  }

  /** The next redirect to `path` (the full URL with code, state, iss or error); rejects after timeoutMs or on close(). */
  waitForCallback(): Promise<URL> {
    return this.waitFor(() => true).promise;
  }

  /** `redirectUri` and an `onAuthorizationUrl` that calls `show(url)` (print it, open a browser) then waits for the callback. */
  authorization(
    show: (url: URL) => void | Promise<void>,
  ): Required<Pick<McpOAuthOptions, 'redirectUri' | 'onAuthorizationUrl'>> {
    return {
      redirectUri: this.redirectUri,
      onAuthorizationUrl: async (url: URL) => {
        // Waiting starts before the URL is shown, so that no redirect comes too early; a callback carrying another
        // state (an old browser tab, a request forged by another local process) does not end this authorization.
        if (this.closed) throw closedError();
        const state = url.searchParams.get('state');
        const wait = this.waitFor((callback) => state === null || callback.searchParams.get('state') === state);
        // Should the wait end while `show` still runs, its rejection is handled (by the caller, once show returns).
        wait.promise.catch(() => undefined);
        try {
          await show(url);
        } catch (error) {
          wait.cancel();
          throw error;
        }
        return wait.promise;
      },
    };
  }

  /** Stops listening, drops open connections and rejects the waits in progress. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(closedError());
    }
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await stopped;
  }

  private waitFor(accepts: (callback: URL) => boolean): { promise: Promise<URL>; cancel(): void } {
    if (this.closed) return { promise: Promise.reject(closedError()), cancel: () => undefined };
    let waiter!: Waiter;
    const promise = new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.remove(waiter);
        reject(
          new McpAuthorizationError(`No authorization answer reached ${this.redirectUri} within ${this.timeoutMs} ms`),
        );
      }, this.timeoutMs);
      // A forgotten wait must not keep the process alive by itself (the listener does, until close()).
      timer.unref();
      waiter = { accepts, resolve, reject, timer };
    });
    this.waiters.push(waiter);
    return {
      promise,
      cancel: () => {
        clearTimeout(waiter.timer);
        this.remove(waiter);
      },
    };
  }

  private remove(waiter: Waiter): void {
    const at = this.waiters.indexOf(waiter);
    if (at >= 0) this.waiters.splice(at, 1);
  }

  // No request body is ever read: every answer closes its connection, which discards whatever else was sent.
  private answer(req: IncomingMessage, res: ServerResponse): void {
    const target = requestTarget(req.url);
    // A Host other than the one in redirectUri is not the browser following the redirect (DNS rebinding, a proxy).
    if (!target || target.pathname !== this.path || req.headers.host !== this.host) {
      return page(res, 404, PAGES.notFound);
    }
    if (req.method !== 'GET') return page(res, 405, PAGES.notAllowed, { allow: 'GET' });
    const query = target.searchParams;
    if (!query.has('code') && !query.has('error') && !query.has('state')) return page(res, 400, PAGES.notAnswer);
    const callback = new URL(this.redirectUri);
    callback.search = target.search;
    const waiter = this.waiters.find((candidate) => candidate.accepts(callback));
    if (!waiter) return page(res, 400, PAGES.unexpected);
    this.remove(waiter);
    clearTimeout(waiter.timer);
    waiter.resolve(callback);
    page(res, 200, query.has('error') ? PAGES.refused : PAGES.complete);
  }
}

function closedError(): McpAuthorizationError {
  return new McpAuthorizationError('The authorization was abandoned: the redirect listener is closed');
}

// The request line's target as a URL (origin-form, or absolute-form from a proxy-style client); undefined when it
// does not parse.
function requestTarget(url: string | undefined): URL | undefined {
  if (!url) return undefined;
  try {
    return new URL(url, 'http://loopback.invalid');
  } catch {
    return undefined;
  }
}

function page(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  const body = `<!doctype html><meta charset="utf-8"><title>${text}</title><p>${text}</p>\n`;
  res.writeHead(status, {
    ...headers,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    // The page's URL carries the code: no referrer, no script, nothing loaded from anywhere.
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'none'",
    'x-content-type-options': 'nosniff',
    connection: 'close',
  });
  res.end(body);
}

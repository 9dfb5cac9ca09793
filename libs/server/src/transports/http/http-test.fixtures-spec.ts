// Test helpers shared by the HTTP transport specs (the `-spec.ts` suffix keeps it out of the library build and
// out of jest's test list).
import { AddressInfo, Socket } from 'node:net';
import http, { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { JsonRpcResponse, classifyMessage, errorResponse, negotiateLegacyRevision } from '@conduit-mcp/core';
import { DispatchOrigin } from '../../dispatch/dispatch-origin.interface';
import { McpEndpoint } from '../../dispatch/mcp-endpoint.interface';
import { LiveSessions } from '../../session/live-sessions';
import { PollableStream } from './post.reply';

/**
 * A stand-in for the dispatcher. Methods: `initialize` (sets the revision; `params.stream` streams a notification first, `params.fail` refuses), `echo`, `slow`
 * (two notifications on the request stream, then the answer), `wait` (a notification, then waits for
 * `release(id)`), `poll` (closes the connection SEP-1699 style, then waits for `release(id)`); anything else is
 * -32601. Modern requests (with `_meta` protocolVersion) answer `server/discover` only.
 */
export class FakeEndpoint implements McpEndpoint {
  readonly options = { name: 'fake', version: '1.0.0' };
  readonly sessions = new LiveSessions();
  readonly received: Array<{ message: Record<string, unknown>; origin: DispatchOrigin }> = [];
  private readonly gates = new Map<unknown, () => void>();

  release(id: unknown): void {
    this.gates.get(id)?.();
  }

  async handle(raw: unknown, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    const classified = classifyMessage(raw);
    if (classified.kind === 'invalid') return errorResponse(classified.id, classified.error);
    this.received.push({ message: classified.message as unknown as Record<string, unknown>, origin });
    if (classified.kind === 'response') {
      origin.session.resolveResponse(classified.message);
      return undefined;
    }
    if (classified.kind === 'notification') return undefined;
    const { id, method, params = {} } = classified.message;
    const ok = (result: Record<string, unknown>): JsonRpcResponse => ({ jsonrpc: '2.0', id, result });
    const meta = params._meta as Record<string, unknown> | undefined;
    if (meta && 'io.modelcontextprotocol/protocolVersion' in meta) {
      return method === 'server/discover'
        ? ok({ supportedVersions: ['2026-07-28'] })
        : { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
    }
    const note = (text: string) =>
      origin.stream?.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: text } });
    switch (method) {
      case 'initialize':
        if (params.stream) note('hello');
        if (params.fail) return { jsonrpc: '2.0', id, error: { code: -32602, message: 'Refused' } };
        origin.session.revision = negotiateLegacyRevision(params.protocolVersion);
        return ok({
          protocolVersion: origin.session.revision,
          capabilities: {},
          serverInfo: { name: 'fake', version: '1.0.0' },
        });
      case 'echo':
        return ok({ echo: params });
      case 'slow':
        note('one');
        await delay(10);
        note('two');
        await delay(10);
        return ok({ done: true });
      case 'wait':
        note('before');
        await new Promise<void>((resolve) => this.gates.set(id, resolve));
        note('after');
        return ok({ waited: true });
      case 'poll':
        (origin.stream as PollableStream).closeConnection();
        await new Promise<void>((resolve) => this.gates.set(id, resolve));
        return ok({ polled: true });
      default:
        return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
    }
  }
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server on 127.0.0.1 and a random port; `close()` destroys every socket still open. */
export interface TestServer {
  port: number;
  server: http.Server;
  close(): Promise<void>;
}

export async function startServer(listener?: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const server = http.createServer(listener);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface RequestOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string | number>;
  body?: unknown;
}

export const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** One HTTP request; the body is JSON-encoded unless it is a string. */
export function request(port: number, options: RequestOptions = {}): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const body =
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/mcp',
        headers: options.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A JSON-RPC POST with the headers a Streamable HTTP client sends. */
export function post(port: number, body: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
  return request(port, { body, headers: { ...POST_HEADERS, ...headers } });
}

/** Initializes a session and returns its id. */
export async function initialize(port: number, protocolVersion = '2025-11-25'): Promise<string> {
  const res = await post(port, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  expect(res.status).toBe(200);
  return res.headers['mcp-session-id'] as string;
}

export interface ParsedEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/** An SSE response read as it arrives. */
export class SseReader {
  readonly events: ParsedEvent[] = [];
  readonly comments: string[] = [];
  status = 0;
  headers: IncomingHttpHeaders = {};
  text = '';
  ended = false;
  private buffer = '';
  private waiters: Array<() => void> = [];
  private req!: http.ClientRequest;

  static open(port: number, options: RequestOptions): Promise<SseReader> {
    const reader = new SseReader();
    return new Promise((resolve, reject) => {
      const body = options.body === undefined ? undefined : JSON.stringify(options.body);
      reader.req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: options.method ?? 'GET',
          path: options.path ?? '/mcp',
          headers: options.headers,
          agent: false,
        },
        (res) => {
          reader.status = res.statusCode ?? 0;
          reader.headers = res.headers;
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => reader.feed(chunk));
          res.on('end', () => reader.finish());
          res.on('close', () => reader.finish());
          res.on('error', () => reader.finish());
          resolve(reader);
        },
      );
      reader.req.on('error', (error) => (reader.status ? reader.finish() : reject(error)));
      reader.req.end(body);
    });
  }

  /** The JSON-RPC messages: the data of the `message` events that have data. */
  get messages(): any[] {
    return this.events
      .filter((event) => (event.event ?? 'message') === 'message' && event.data !== '')
      .map((event) => JSON.parse(event.data));
  }

  /** Resolves once `predicate` holds; rejects after `timeoutMs`. */
  async until(predicate: (reader: SseReader) => boolean, timeoutMs = 3_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`SSE condition not met; events: ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }

  untilEnded(timeoutMs?: number): Promise<void> {
    return this.until((reader) => reader.ended, timeoutMs);
  }

  /** Drops the connection from the client side. */
  destroy(): void {
    this.req.destroy();
  }

  private feed(chunk: string): void {
    this.text += chunk;
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event: ParsedEvent = { data: '' };
      const data: string[] = [];
      let isEvent = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          this.comments.push(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        isEvent = true;
        if (field === 'data') data.push(value);
        else if (field === 'id') event.id = value;
        else if (field === 'event') event.event = value;
        else if (field === 'retry') event.retry = Number(value);
      }
      if (isEvent) {
        event.data = data.join('\n');
        this.events.push(event);
      }
    }
    this.wake();
  }

  private finish(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    this.waiters.splice(0).forEach((wake) => wake());
  }
}

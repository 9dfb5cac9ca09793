// Test helpers shared by the client transport specs (the `-spec.ts` suffix keeps it out of the library build and
// out of jest's test list).
import http, { IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { Injectable, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpArgs, McpCtx, McpModule, McpRequestContext, McpTool } from '@conduit-mcp/server';
import { ClientTransport } from '../../libs/client/src/transports/client-transport.interface';

/** Resolves once `predicate` holds; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Everything a transport reports. */
export class Recorder {
  readonly messages: any[] = [];
  readonly related: unknown[] = [];
  readonly errors: Error[] = [];
  closes = 0;

  constructor(transport: ClientTransport) {
    transport.onmessage = (message, info) => {
      this.messages.push(message);
      this.related.push(info?.relatedRequestId);
    };
    transport.onerror = (error) => this.errors.push(error);
    transport.onclose = () => this.closes++;
  }

  /** The response with this id (waits for it). */
  async response(id: unknown, timeoutMs = 5_000): Promise<any> {
    await waitFor(
      () => this.messages.some((m) => m.id === id && !('method' in m)),
      timeoutMs,
      `response ${String(id)}`,
    );
    return this.messages.find((m) => m.id === id && !('method' in m));
  }

  notifications(method: string): any[] {
    return this.messages.filter((m) => m.method === method && !('id' in m));
  }
}

export const initializeRequest = (id: number | string = 0, protocolVersion = '2025-11-25') => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'transport-test', version: '1' } },
});

export const initializedNotification = { jsonrpc: '2.0' as const, method: 'notifications/initialized' };

/** A raw HTTP server on 127.0.0.1 and a random port; `close()` destroys every socket still open. */
export interface RawServer {
  port: number;
  url: string;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

export async function startRawServer(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
  path = '/mcp',
): Promise<RawServer> {
  const requests: RawServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON body. */
export function json(res: ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Starts an SSE response. */
export function sseHead(res: ServerResponse, headers: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...headers });
  res.flushHeaders();
}

/** One SSE event as text. */
export function sseEvent(data: unknown, fields: { id?: string; event?: string; retry?: number } = {}): string {
  let text = '';
  if (fields.id !== undefined) text += `id: ${fields.id}\n`;
  if (fields.event !== undefined) text += `event: ${fields.event}\n`;
  if (fields.retry !== undefined) text += `retry: ${fields.retry}\n`;
  return `${text}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Injectable()
class TestTools {
  @McpTool({
    name: 'count',
    description: 'Counts to `steps`, reporting progress at each step',
    input: { type: 'object', properties: { steps: { type: 'integer', minimum: 1, maximum: 20 } }, required: ['steps'] },
  })
  async count(@McpArgs() args: { steps: number }, @McpCtx() ctx: McpRequestContext) {
    for (let step = 1; step <= args.steps; step++) {
      await sleep(5);
      ctx.progress(step, args.steps);
    }
    return `Counted to ${args.steps}`;
  }

  @McpTool({
    name: 'poll',
    description: 'Drops its SSE connection mid-way (SEP-1699), then finishes',
    input: { type: 'object' },
  })
  async poll(@McpArgs() _args: unknown, @McpCtx() ctx: McpRequestContext) {
    ctx.progress(1, 3);
    ctx.closeSseStream(20);
    await sleep(100);
    ctx.progress(2, 3);
    await sleep(10);
    ctx.progress(3, 3);
    return 'Polled';
  }

  @McpTool({
    name: 'echo',
    description: 'Echoes its text',
    input: { type: 'object', properties: { text: { type: 'string' } } },
  })
  echo(@McpArgs() args: { text?: string }) {
    return args.text ?? '';
  }
}

/** This project's own server (`McpModule`) on 127.0.0.1:0, with the tools `count`, `poll` and `echo`. */
export interface NestServer {
  app: INestApplication;
  /** The Streamable HTTP endpoint. */
  url: string;
  /** The legacy HTTP+SSE stream. */
  sseUrl: string;
  close(): Promise<void>;
}

export async function startNestServer(): Promise<NestServer> {
  @Module({ imports: [McpModule.forRoot({ name: 't', version: '1', http: { path: '/mcp' } })], providers: [TestTools] })
  class TestServerModule {}

  const app = await NestFactory.create(TestServerModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}/mcp`, sseUrl: `http://127.0.0.1:${port}/sse`, close: () => app.close() };
}

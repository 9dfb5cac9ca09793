import type { AddressInfo } from 'node:net';
import { INestApplication, Module } from '@nestjs/common';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  MCP_CHANNELS,
  McpCtx,
  McpModule,
  McpRequestContext,
  McpSessionEvent,
  McpStreamEvent,
  McpTool,
} from '@conduit-mcp/server';
import { HTTP_ADAPTERS, createHttpApp } from './support/http-adapters';
import { legacyHeaders, openGetStream, openLegacySession, streamToolCall, until } from './support/legacy-http.client';

// The session and stream channels over real HTTP: what opens, what closes, how long it stayed open.

class Tools {
  @McpTool({ description: 'Logs, then answers: its POST answers on an SSE stream' })
  async chatty(@McpCtx() ctx: McpRequestContext): Promise<string> {
    ctx.log('info', 'working');
    await new Promise((resolve) => setTimeout(resolve, 20));
    return 'done';
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'lifecycle', version: '1.0.0' })],
  providers: [Tools],
})
class LifecycleModule {}

describe.each(HTTP_ADAPTERS)('session and stream events over HTTP (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;
  const sessions: McpSessionEvent[] = [];
  const streams: McpStreamEvent[] = [];
  const onSession = (event: unknown) => sessions.push(event as McpSessionEvent);
  const onStream = (event: unknown) => streams.push(event as McpStreamEvent);

  beforeAll(async () => {
    app = await createHttpApp(LifecycleModule, adapter);
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`;
  });

  beforeEach(() => {
    sessions.length = 0;
    streams.length = 0;
    subscribe(MCP_CHANNELS.session, onSession);
    subscribe(MCP_CHANNELS.stream, onStream);
  });

  afterEach(() => {
    unsubscribe(MCP_CHANNELS.session, onSession);
    unsubscribe(MCP_CHANNELS.stream, onStream);
  });

  afterAll(() => app.close());

  it('a session opens with initialize and closes, ended for good, when the client deletes it', async () => {
    const sessionId = await openLegacySession(url);
    expect(sessions).toEqual([
      { server: 'lifecycle', type: 'opened', transport: 'streamable-http', protocolVersion: '2025-11-25' },
    ]);
    const deleted = await fetch(url, { method: 'DELETE', headers: legacyHeaders(sessionId) });
    expect(deleted.status).toBe(204);
    await until('the closed event', () => (sessions.length === 2 ? true : undefined));
    expect(sessions[1]).toEqual({
      server: 'lifecycle',
      type: 'closed',
      transport: 'streamable-http',
      protocolVersion: '2025-11-25',
      durationMs: expect.any(Number),
      ended: true,
    });
    expect(sessions[1].durationMs).toBeGreaterThan(0);
  });

  it('a reply stream and a GET stream each open once and close once', async () => {
    const sessionId = await openLegacySession(url);
    const call = await streamToolCall(url, sessionId, 1, 'chatty');
    await call.done;
    await until('the reply stream closed', () =>
      streams.some((e) => e.kind === 'reply' && e.type === 'closed') ? true : undefined,
    );
    const get = await openGetStream(url, sessionId);
    expect(get.status).toBe(200);
    await until('the GET stream opened', () => (streams.some((e) => e.kind === 'get') ? true : undefined));
    await get.stream!.cancel();
    await until('the GET stream closed', () =>
      streams.some((e) => e.kind === 'get' && e.type === 'closed') ? true : undefined,
    );
    expect(streams).toEqual([
      { server: 'lifecycle', type: 'opened', kind: 'reply' },
      { server: 'lifecycle', type: 'closed', kind: 'reply', durationMs: expect.any(Number) },
      { server: 'lifecycle', type: 'opened', kind: 'get' },
      { server: 'lifecycle', type: 'closed', kind: 'get', durationMs: expect.any(Number) },
    ]);
    await fetch(url, { method: 'DELETE', headers: legacyHeaders(sessionId) });
  });

  it('a stream opened while nobody listened is not reported when it closes', async () => {
    unsubscribe(MCP_CHANNELS.stream, onStream);
    const sessionId = await openLegacySession(url);
    const get = await openGetStream(url, sessionId);
    subscribe(MCP_CHANNELS.stream, onStream);
    await get.stream!.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(streams).toEqual([]);
    await fetch(url, { method: 'DELETE', headers: legacyHeaders(sessionId) });
  });
});

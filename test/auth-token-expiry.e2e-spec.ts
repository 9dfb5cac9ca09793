// Streams that outlive their request end when the token they were opened with expires (its `exp`): a legacy GET
// stream, an HTTP+SSE connection, a modern subscriptions/listen stream. A stream opened with a token still valid for
// long stays open. The client comes back with a fresh token (a GET stream resumes with Last-Event-ID).
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { McpAuthInfo, McpModule, McpTool } from '@conduit-mcp/server';
import { createHttpApp } from './support/http-adapters';
import { initializeSession, legacySessionOf } from './support/bearer-rpc';

@Injectable()
class PingTools {
  @McpTool({ name: 'ping' })
  ping() {
    return 'pong';
  }
}

// `short` expires 1.5 s after it is checked, `long` in an hour.
function verify(token: string): McpAuthInfo | undefined {
  const now = Date.now() / 1_000;
  if (token === 'short') return { subject: 'ann', scopes: [], claims: { sub: 'ann', exp: now + 1.5 } };
  if (token === 'long') return { subject: 'ann', scopes: [], claims: { sub: 'ann', exp: now + 3_600 } };
  return undefined;
}

/** Opens a stream and resolves with how long it stayed open, or 'open' if it still is after `withinMs`. */
async function streamLife(response: Promise<Response>, withinMs: number): Promise<number | 'open'> {
  const started = Date.now();
  const answer = await response;
  expect(answer.status).toBe(200);
  const reader = answer.body!.getReader();
  const ended = (async () => {
    while (!(await reader.read()).done);
    return Date.now() - started;
  })();
  const timeout = new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), withinMs));
  const life = await Promise.race([ended, timeout]);
  if (life === 'open') await reader.cancel();
  return life;
}

describe('streams end when their token expires', () => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'expiry',
          version: '1',
          http: { legacySse: {} },
          auth: {
            resource: 'http://127.0.0.1/mcp',
            authorizationServers: ['https://idp.example.com'],
            token: { type: 'custom', verify },
          },
        }),
      ],
      providers: [PingTools],
    })
    class ExpiryModule {}
    app = await createHttpApp(ExpiryModule, 'express');
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(() => app?.close());

  const getStream = (session: string, token: string) =>
    fetch(`${base}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
    });

  it('ends a legacy GET stream at the expiry of its token, not before; a long-lived token keeps it open', async () => {
    const session = await initializeSession(`${base}/mcp`, 'long');
    const short = await streamLife(getStream(session, 'short'), 6_000);
    expect(short).not.toBe('open');
    expect(short).toBeGreaterThanOrEqual(1_000);
    expect(await streamLife(getStream(session, 'long'), 2_500)).toBe('open');
    // The session itself goes on, with a valid token.
    const rpc = await legacySessionOf(`${base}/mcp`, 'long');
    expect((await rpc('tools/call', { name: 'ping', arguments: {} })).result).toMatchObject({
      content: [{ text: 'pong' }],
    });
  });

  it('ends an HTTP+SSE connection and a modern subscriptions/listen stream at the expiry of their token', async () => {
    const sse = fetch(`${base}/sse`, { headers: { accept: 'text/event-stream', authorization: 'Bearer short' } });
    const listen = fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer short',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: {
          notifications: { toolsListChanged: true },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const [sseLife, listenLife] = await Promise.all([streamLife(sse, 6_000), streamLife(listen, 6_000)]);
    expect(sseLife).not.toBe('open');
    expect(listenLife).not.toBe('open');
  });
});

import { Injectable, INestApplication, Module } from '@nestjs/common';
import {
  InMemorySessionStore,
  McpAuthenticator,
  McpCtx,
  McpModule,
  McpRequestContext,
  McpTool,
  SessionStore,
} from '@conduit-mcp/server';
import { HTTP_ADAPTERS, createHttpApp } from './support/http-adapters';

const JSON_AND_SSE = 'application/json, text/event-stream';

@Injectable()
class WhoTools {
  @McpTool({ name: 'who', description: 'Says which session and log level it runs with' })
  who(@McpCtx() ctx: McpRequestContext) {
    return { session: ctx.sessionId, clientInfo: ctx.clientInfo, subject: ctx.auth?.subject ?? null };
  }
}

// The caller is whoever the X-User header names (a stand-in for a verified token).
const byHeader: McpAuthenticator = {
  authenticate: (facts) => {
    const user = facts.headers['x-user'];
    return typeof user === 'string'
      ? { ok: true, auth: { subject: user, scopes: [], claims: {} } }
      : { ok: false, status: 401, challenge: 'Bearer' };
  },
};

/** An instance of the server: its own app, live sessions and port; the session store given is shared. */
async function instance(store: SessionStore, adapter: (typeof HTTP_ADAPTERS)[number], auth = false) {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'shared',
        version: '1',
        sessionStore: store,
        http: auth ? { authenticator: byHeader } : {},
      }),
    ],
    providers: [WhoTools],
  })
  class InstanceModule {}
  const app = await createHttpApp(InstanceModule, adapter);
  await app.listen(0, '127.0.0.1');
  return app;
}

async function post(app: INestApplication, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${await app.getUrl()}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: JSON_AND_SSE,
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'roamer', version: '1' } },
};
const callWho = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'who', arguments: {} } };

describe.each(HTTP_ADAPTERS)('sessions in a shared SessionStore (%s)', (adapter) => {
  const apps: INestApplication[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it('a session opened on one instance is served by another, from its record', async () => {
    const store = new InMemorySessionStore();
    const [a, b] = [await instance(store, adapter), await instance(store, adapter)];
    apps.push(a, b);
    const opened = await post(a, initialize);
    const sessionId = opened.headers.get('mcp-session-id')!;
    await post(a, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId });
    await new Promise((resolve) => setImmediate(resolve)); // the record is written in the background

    const served = await post(b, callWho, { 'mcp-session-id': sessionId });
    expect(served.status).toBe(200);
    expect(served.json.result.structuredContent).toMatchObject({ session: sessionId, clientInfo: { name: 'roamer' } });

    // Deleted on B: gone for A too, once A no longer holds it live (a fresh instance stands in for that).
    const deleted = await fetch(`${await b.getUrl()}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId },
    });
    expect(deleted.status).toBe(204);
    const c = await instance(store, adapter);
    apps.push(c);
    expect((await post(c, callWho, { 'mcp-session-id': sessionId })).status).toBe(404);
  });

  it('an unknown session id is 404 on every instance', async () => {
    const store = new InMemorySessionStore();
    const a = await instance(store, adapter);
    apps.push(a);
    expect((await post(a, callWho, { 'mcp-session-id': 'no-such-session' })).status).toBe(404);
  });

  it('a session belongs to the principal that opened it: another caller gets 404, here and elsewhere', async () => {
    const store = new InMemorySessionStore();
    const [a, b] = [await instance(store, adapter, true), await instance(store, adapter, true)];
    apps.push(a, b);
    const opened = await post(a, initialize, { 'x-user': 'alice' });
    const sessionId = opened.headers.get('mcp-session-id')!;
    await new Promise((resolve) => setImmediate(resolve));
    expect((await store.get(sessionId))?.principal).toBe('alice');

    const alice = await post(a, callWho, { 'mcp-session-id': sessionId, 'x-user': 'alice' });
    expect(alice.json.result.structuredContent).toMatchObject({ subject: 'alice' });
    expect((await post(a, callWho, { 'mcp-session-id': sessionId, 'x-user': 'bob' })).status).toBe(404);
    expect((await post(b, callWho, { 'mcp-session-id': sessionId, 'x-user': 'bob' })).status).toBe(404);
    expect((await post(b, callWho, { 'mcp-session-id': sessionId, 'x-user': 'alice' })).status).toBe(200);
  });
});

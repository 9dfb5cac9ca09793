import { Injectable, INestApplication, Module } from '@nestjs/common';
import {
  InMemoryEventBus,
  InMemorySessionStore,
  McpEventBus,
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
  @McpTool({ name: 'ask', description: 'Asks the client for a word' })
  async ask(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('word', {
      message: 'A word?',
      requestedSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    });
    return `got ${String(answer.content?.word)}`;
  }

  @McpTool({ name: 'wait', description: 'Waits until cancelled' })
  async wait(@McpCtx() ctx: McpRequestContext) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    WhoTools.cancelledWith = String((ctx.signal.reason as Error).message);
    return 'cancelled';
  }

  static cancelledWith: string | undefined;

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
async function instance(
  store: SessionStore,
  adapter: (typeof HTTP_ADAPTERS)[number],
  auth = false,
  eventBus: McpEventBus = new InMemoryEventBus(),
) {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'shared',
        version: '1',
        sessionStore: store,
        eventBus,
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

  /** Opens a POST whose answer streams, and reads its SSE messages as they come. */
  async function streamingPost(app: INestApplication, body: unknown, headers: Record<string, string>) {
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
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    return {
      async next(): Promise<Record<string, any>> {
        for (;;) {
          const match = /data: (.+)\n/.exec(buffer);
          if (match) {
            buffer = buffer.slice(match.index + match[0].length);
            return JSON.parse(match[1]);
          }
          const { value, done } = await reader.read();
          if (done) throw new Error('the stream ended');
          buffer += value;
        }
      },
      cancel: () => reader.cancel(),
    };
  }

  async function sharedPair(capabilities: Record<string, unknown>) {
    const store = new InMemorySessionStore();
    const bus = new InMemoryEventBus();
    const [a, b] = [await instance(store, adapter, false, bus), await instance(store, adapter, false, bus)];
    apps.push(a, b);
    const opened = await post(a, { ...initialize, params: { ...initialize.params, capabilities } });
    const sessionId = opened.headers.get('mcp-session-id')!;
    await post(a, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId });
    await new Promise((resolve) => setImmediate(resolve));
    return { a, b, session: { 'mcp-session-id': sessionId } };
  }

  it("the client's answer to a question asked on one instance may arrive at another (through the bus)", async () => {
    const { a, b, session } = await sharedPair({ elicitation: {} });
    const call = await streamingPost(
      a,
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'ask', arguments: {} } },
      session,
    );
    const question = await call.next();
    expect(question).toMatchObject({ method: 'elicitation/create', id: expect.any(String) });
    const answered = await post(
      b,
      { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { word: 'fern' } } },
      session,
    );
    expect(answered.status).toBe(202);
    expect(await call.next()).toMatchObject({ id: 5, result: { content: [{ type: 'text', text: 'got fern' }] } });
  });

  it('a cancellation sent to another instance stops the request where it runs (through the bus)', async () => {
    const { a, b, session } = await sharedPair({});
    WhoTools.cancelledWith = undefined;
    // Its answer comes only when it ends, so the POST is left running rather than awaited.
    const abort = new AbortController();
    const call = fetch(`${await a.getUrl()}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: JSON_AND_SSE,
        'mcp-protocol-version': '2025-11-25',
        ...session,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'w1', method: 'tools/call', params: { name: 'wait', arguments: {} } }),
      signal: abort.signal,
    }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the tool is waiting
    await post(
      b,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w1', reason: 'user left' } },
      session,
    );
    for (let i = 0; i < 100 && WhoTools.cancelledWith === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    expect(WhoTools.cancelledWith).toBe('user left');
    abort.abort();
    await call;
  });

  /** Opens an HTTP+SSE session on `app`: its stream's events as they come, and the message URL it names. */
  async function sseSession(app: INestApplication, headers: Record<string, string> = {}) {
    const abort = new AbortController();
    const response = await fetch(`${await app.getUrl()}/sse`, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const next = async (): Promise<{ event: string; data: string }> => {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data !== undefined) return { event: /^event: (.*)$/m.exec(block)?.[1] ?? 'message', data };
          continue; // a comment (keep-alive)
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffer += value;
      }
    };
    const endpoint = await next();
    expect(endpoint.event).toBe('endpoint');
    const messagePath = endpoint.data;
    const sessionId = new URL(messagePath, 'http://x').searchParams.get('sessionId')!;
    return { next, messagePath, sessionId, close: () => abort.abort() };
  }

  async function postMessage(app: INestApplication, path: string, body: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${await app.getUrl()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    await response.text();
    return response.status;
  }

  it('an HTTP+SSE session whose stream one instance holds is served by another (on that transport only): its answers travel on the bus', async () => {
    const store = new InMemorySessionStore();
    const bus = new InMemoryEventBus();
    const [a, b] = [await instance(store, adapter, true, bus), await instance(store, adapter, true, bus)];
    apps.push(a, b);
    const alice = { 'x-user': 'alice' };
    const stream = await sseSession(a, alice);
    try {
      expect(
        await postMessage(
          a,
          stream.messagePath,
          { ...initialize, params: { ...initialize.params, protocolVersion: '2024-11-05' } },
          alice,
        ),
      ).toBe(202);
      expect(JSON.parse((await stream.next()).data)).toMatchObject({
        id: 1,
        result: { protocolVersion: '2024-11-05' },
      });
      expect(
        await postMessage(a, stream.messagePath, { jsonrpc: '2.0', method: 'notifications/initialized' }, alice),
      ).toBe(202);
      await new Promise((resolve) => setImmediate(resolve)); // the record is written in the background

      // Posted to B, which does not hold the stream: the answer comes on A's stream.
      expect(await postMessage(b, stream.messagePath, callWho, alice)).toBe(202);
      expect(JSON.parse((await stream.next()).data)).toMatchObject({
        id: 2,
        result: { structuredContent: { session: stream.sessionId, subject: 'alice' } },
      });
      // Another caller cannot use the session, on either instance.
      expect(await postMessage(a, stream.messagePath, callWho, { 'x-user': 'bob' })).toBe(404);
      expect(await postMessage(b, stream.messagePath, callWho, { 'x-user': 'bob' })).toBe(404);
      // Nor can another transport: its answers would go where nobody reads them.
      expect((await post(b, callWho, { 'mcp-session-id': stream.sessionId, ...alice })).status).toBe(404);
      const streamable = (await post(a, initialize, alice)).headers.get('mcp-session-id')!;
      expect(await postMessage(a, `/message?sessionId=${streamable}`, callWho, alice)).toBe(404);
    } finally {
      stream.close();
    }
  });
});

import { Injectable, INestApplication, Module } from '@nestjs/common';
import {
  EventStore,
  InMemoryEventBus,
  InMemoryEventStore,
  InMemorySessionStore,
  McpEventBus,
  McpAuthenticator,
  McpCtx,
  McpModule,
  McpRequestContext,
  McpResource,
  McpServer,
  McpTool,
  SessionStore,
} from '@conduit-mcp/server';
import { LiveSessions } from '../libs/server/src/session/live-sessions';
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

  @McpTool({ name: 'chatty', description: 'Logs at info and at error, then answers' })
  chatty(@McpCtx() ctx: McpRequestContext) {
    ctx.log('info', 'an info line');
    ctx.log('error', 'an error line');
    return 'said it';
  }

  @McpTool({ name: 'chatty_held', description: 'Logs at info and at error, then answers once released' })
  async chattyHeld(@McpCtx() ctx: McpRequestContext) {
    ctx.log('info', 'an info line');
    ctx.log('error', 'an error line');
    await WhoTools.held;
    return 'said it';
  }

  // Set by the test that calls it.
  static release: () => void;
  static held: Promise<void>;

  @McpResource({ uri: 'memo://1', name: 'memo' })
  memo() {
    return 'memo';
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
  eventStore: EventStore = new InMemoryEventStore(),
) {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'shared',
        version: '1',
        sessionStore: store,
        eventBus,
        eventStore,
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

/** Waits at most this long for an SSE event or for a stream to end. */
const SSE_WAIT_MS = 5_000;

/** Reads an SSE response's events as they come (comments skipped), each within SSE_WAIT_MS. */
function sseEvents(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const read = () =>
    Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no SSE data in time')), SSE_WAIT_MS)),
    ]);
  /** The next event (`undefined` once the stream ended). */
  const event = async (): Promise<{ id?: string; data: string } | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: ?(.*)$/m.exec(block)?.[1];
        if (data !== undefined) return { id: /^id: (.*)$/m.exec(block)?.[1], data };
        continue; // a comment (keep-alive)
      }
      const { value, done } = await read();
      if (done) return undefined;
      buffer += value;
    }
  };
  return {
    event,
    /** The next JSON-RPC message, priming events (no data) skipped. */
    async message(): Promise<Record<string, any>> {
      for (;;) {
        const next = await event();
        if (!next) throw new Error('the stream ended');
        if (next.data) return JSON.parse(next.data);
      }
    },
    /** Whether the stream ends (within SSE_WAIT_MS), whatever else comes first. */
    async ends(): Promise<boolean> {
      try {
        while (await event());
        return true;
      } catch {
        return false;
      }
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}

/** Polls `condition` (bounded): for what an instance does in the background, such as reloading a record. */
async function eventually(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
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
    const events = new InMemoryEventStore();
    const [a, b] = [
      await instance(store, adapter, false, bus, events),
      await instance(store, adapter, false, bus, events),
    ];
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

  /** A POST whose answer streams (SSE), read as it comes. */
  async function openPost(app: INestApplication, body: unknown, session: Record<string, string>) {
    const response = await fetch(`${await app.getUrl()}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: JSON_AND_SSE,
        'mcp-protocol-version': '2025-11-25',
        ...session,
      },
      body: JSON.stringify(body),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    return sseEvents(response);
  }

  /** A `GET` on the session: its standalone stream, or with `Last-Event-ID` a resumption. */
  async function openGet(app: INestApplication, session: Record<string, string>, lastEventId?: string) {
    const response = await fetch(`${await app.getUrl()}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...session,
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
    });
    expect(response.status).toBe(200);
    return sseEvents(response);
  }

  const callTool = (id: string, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });

  it("two instances' copies of one session ask with distinct ids, and each answer reaches the copy that asked", async () => {
    const { a, b, session } = await sharedPair({ elicitation: {} });
    const onA = await openPost(a, callTool('on-a', 'ask'), session);
    const onB = await openPost(b, callTool('on-b', 'ask'), session);
    const [askedOnA, askedOnB] = [await onA.message(), await onB.message()];
    expect(askedOnA).toMatchObject({ method: 'elicitation/create', id: expect.any(String) });
    expect(askedOnB).toMatchObject({ method: 'elicitation/create', id: expect.any(String) });
    expect(askedOnA.id).not.toBe(askedOnB.id);
    // Crossed: each answer reaches the instance that did not ask, and travels on the bus to the one that did.
    const answer = (id: string, word: string) => ({
      jsonrpc: '2.0',
      id,
      result: { action: 'accept', content: { word } },
    });
    expect((await post(b, answer(askedOnA.id, 'fern'), session)).status).toBe(202);
    expect((await post(a, answer(askedOnB.id, 'moss'), session)).status).toBe(202);
    expect(await onA.message()).toMatchObject({
      id: 'on-a',
      result: { content: [{ type: 'text', text: 'got fern' }] },
    });
    expect(await onB.message()).toMatchObject({
      id: 'on-b',
      result: { content: [{ type: 'text', text: 'got moss' }] },
    });
  });

  it('a session closed where it was made (that instance shut down) keeps its record and recorded events: another instance resumes its stream', async () => {
    const { a, b, session } = await sharedPair({});
    WhoTools.held = new Promise<void>((resolve) => (WhoTools.release = resolve));
    const call = await openPost(a, callTool('c1', 'chatty_held'), session);
    const priming = await call.event();
    expect(priming).toEqual({ id: expect.any(String), data: '' });
    const logged = [await call.message(), await call.message()];
    expect(logged.map((message) => message.params?.level)).toEqual(['info', 'error']);
    // The client loses the connection before the answer: the stream goes on being recorded, to be resumed.
    await call.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    WhoTools.release();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await a.close();
    apps.splice(apps.indexOf(a), 1);

    const resumed = await openGet(b, session, priming!.id);
    expect([await resumed.message(), await resumed.message(), await resumed.message()]).toEqual([
      ...logged,
      { jsonrpc: '2.0', id: 'c1', result: { content: [{ type: 'text', text: 'said it' }] } },
    ]);
    expect(await resumed.ends()).toBe(true); // the POST's stream had ended: nothing more to come
    expect((await post(b, callWho, session)).status).toBe(200);
  });

  it("DELETE on one instance ends another's live copy: its GET stream ends, and it answers 404", async () => {
    const { a, b, session } = await sharedPair({});
    const stream = await openGet(a, session);
    expect(await stream.event()).toEqual({ id: expect.any(String), data: '' }); // primed: the stream is open
    const deleted = await fetch(`${await b.getUrl()}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-protocol-version': '2025-11-25', ...session },
    });
    expect(deleted.status).toBe(204);
    expect(await stream.ends()).toBe(true);
    expect((await post(a, callWho, session)).status).toBe(404);
  });

  it('a subscription made on another instance reaches the copy holding the GET stream', async () => {
    const { a, b, session } = await sharedPair({});
    const stream = await openGet(a, session);
    await stream.event(); // primed
    const subscribe = { jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'memo://1' } };
    expect((await post(b, subscribe, session)).json).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    const onA = a.get(LiveSessions).peek(session['mcp-session-id'])!;
    await eventually(() => onA.subscribedTo('memo://1')); // reloaded from the record in the background

    await b.get(McpServer).notifyResourceUpdated('memo://1');
    expect(await stream.message()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'memo://1' },
    });
    stream.cancel();
  });

  it('a log level set on another instance applies to calls served here', async () => {
    const { a, b, session } = await sharedPair({});
    const setLevel = { jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'error' } };
    expect((await post(b, setLevel, session)).json).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    const onA = a.get(LiveSessions).peek(session['mcp-session-id'])!;
    await eventually(() => onA.logLevel === 'error');

    const call = await openPost(a, callTool('c2', 'chatty'), session);
    expect(await call.message()).toMatchObject({ method: 'notifications/message', params: { level: 'error' } });
    expect(await call.message()).toMatchObject({ id: 'c2', result: { content: [{ type: 'text', text: 'said it' }] } });
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

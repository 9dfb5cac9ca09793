import { INestApplication, Injectable, Module } from '@nestjs/common';
import {
  EventReplay,
  EventStore,
  InMemoryEventStore,
  InMemorySessionStore,
  McpModule,
  McpTool,
  SessionCreation,
  SessionRecord,
  SessionRecordChanges,
  SessionStore,
} from '@conduit-mcp/server';
import { LiveSessions } from '../libs/server/src/session/live-sessions';
import { HTTP_ADAPTERS, createHttpApp } from './support/http-adapters';

const JSON_AND_SSE = 'application/json, text/event-stream';
const LEGACY = '2025-11-25';

@Injectable()
class Tools {
  @McpTool({ name: 'hello' })
  hello() {
    return 'hello';
  }
}

/** A session store that works until `down` is set, then rejects every call (a Redis that stopped answering). */
class FlakySessionStore implements SessionStore {
  down = false;
  /** What `create` answers while up (a full store refuses). */
  refuse: SessionCreation | undefined;
  private readonly inner = new InMemorySessionStore();

  private guard<T>(call: () => Promise<T>): Promise<T> {
    return this.down ? Promise.reject(new Error('connection refused')) : call();
  }
  create(record: SessionRecord) {
    return this.guard(() => (this.refuse ? Promise.resolve(this.refuse) : this.inner.create(record)));
  }
  get(id: string) {
    return this.guard(() => this.inner.get(id));
  }
  update(id: string, changes: SessionRecordChanges) {
    return this.guard(() => this.inner.update(id, changes));
  }
  touch(id: string) {
    return this.guard(() => this.inner.touch(id));
  }
  delete(id: string) {
    return this.guard(() => this.inner.delete(id));
  }
  count() {
    return this.guard(() => this.inner.count());
  }
}

/** An event store whose replays fail (a Redis that stopped answering while a client resumes). */
class ReplayFailingEventStore implements EventStore {
  private readonly inner = new InMemoryEventStore();
  append(...args: Parameters<EventStore['append']>) {
    return this.inner.append(...args);
  }
  end(sessionId: string, streamId: string) {
    return this.inner.end(sessionId, streamId);
  }
  replayAfter(): Promise<EventReplay | undefined> {
    return Promise.reject(new Error('connection refused'));
  }
  deleteSession(sessionId: string) {
    return this.inner.deleteSession(sessionId);
  }
}

async function start(
  adapter: (typeof HTTP_ADAPTERS)[number],
  sessionStore: SessionStore,
  eventStore: EventStore = new InMemoryEventStore(),
) {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'outage',
        version: '1',
        sessionStore,
        eventStore,
        http: { legacySse: {} },
      }),
    ],
    providers: [Tools],
  })
  class OutageModule {}
  const app = await createHttpApp(OutageModule, adapter);
  await app.listen(0, '127.0.0.1');
  return app;
}

async function send(app: INestApplication, path: string, init: RequestInit) {
  const response = await fetch(`${await app.getUrl()}${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

const post = (app: INestApplication, body: unknown, headers: Record<string, string> = {}) =>
  send(app, '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-protocol-version': LEGACY, ...headers },
    body: JSON.stringify(body),
  });

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'outage', version: '1' } },
};
const callHello = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hello', arguments: {} } };

/** A 503 with `Retry-After` and a -32000 JSON-RPC error carrying `id`. */
function expectUnavailable(reply: Awaited<ReturnType<typeof send>>, id: number | null) {
  expect(reply.status).toBe(503);
  expect(reply.headers.get('retry-after')).toBe('2');
  expect(reply.json).toEqual({
    jsonrpc: '2.0',
    ...(id === null ? {} : { id }),
    error: { code: -32000, message: expect.stringContaining('retry later') },
  });
}

describe.each(HTTP_ADAPTERS)('a session or event store that fails (%s)', (adapter) => {
  const apps: INestApplication[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it('refuses a legacy initialize with 503 and Retry-After when the record cannot be written (fail closed)', async () => {
    const store = new FlakySessionStore();
    const app = await start(adapter, store);
    apps.push(app);
    store.down = true;
    const refused = await post(app, initialize);
    expectUnavailable(refused, 1);
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    // Nothing of the refused session stays live: the room it took is given back.
    expect(app.get(LiveSessions).size).toBe(0);
    store.down = false;
    expect((await post(app, initialize)).status).toBe(200);
    expect(app.get(LiveSessions).size).toBe(1);
  });

  it('refuses a legacy initialize with 503 when the store refuses the record (full)', async () => {
    const store = new FlakySessionStore();
    store.refuse = { ok: false, reason: 'full' };
    const app = await start(adapter, store);
    apps.push(app);
    expectUnavailable(await post(app, initialize), 1);
  });

  it('answers 503 to a request on a session this instance does not hold while the store is down', async () => {
    const store = new FlakySessionStore();
    const [a, b] = [await start(adapter, store), await start(adapter, store)];
    apps.push(a, b);
    const sessionId = (await post(a, initialize)).headers.get('mcp-session-id')!;
    const session = { 'mcp-session-id': sessionId };
    store.down = true;

    expectUnavailable(await post(b, callHello, session), 2);
    const headers = { 'mcp-protocol-version': LEGACY, ...session };
    expectUnavailable(await send(b, '/mcp', { headers: { accept: 'text/event-stream', ...headers } }), null);
    expectUnavailable(await send(b, '/mcp', { method: 'DELETE', headers }), null);
    // Even the instance holding it live: with a shared store it serves a session only while its record exists (it
    // may have been deleted elsewhere), which it cannot tell while the store is down. Fail closed.
    expectUnavailable(await post(a, callHello, session), 2);
  });

  it('refuses a new HTTP+SSE session, and a message for one held elsewhere, with 503 while the store is down', async () => {
    const store = new FlakySessionStore();
    const app = await start(adapter, store);
    apps.push(app);
    store.down = true;
    expectUnavailable(await send(app, '/sse', { headers: { accept: 'text/event-stream' } }), null);
    const message = await send(app, '/message?sessionId=held-elsewhere', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(callHello),
    });
    expectUnavailable(message, null);
  });

  it('answers 503 to a resumption (Last-Event-ID) when the event store fails', async () => {
    const app = await start(adapter, new InMemorySessionStore(), new ReplayFailingEventStore());
    apps.push(app);
    const sessionId = (await post(app, initialize)).headers.get('mcp-session-id')!;
    const resumed = await send(app, '/mcp', {
      headers: {
        accept: 'text/event-stream',
        'mcp-protocol-version': LEGACY,
        'mcp-session-id': sessionId,
        'last-event-id': 'a-stream:1',
      },
    });
    expectUnavailable(resumed, null);
  });

  it('keeps serving the modern era, which needs no session store', async () => {
    const store = new FlakySessionStore();
    store.down = true;
    const app = await start(adapter, store);
    apps.push(app);
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const served = await send(app, '/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: JSON_AND_SSE,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'hello',
      },
      body: JSON.stringify({ ...callHello, params: { ...callHello.params, _meta: meta } }),
    });
    expect(served.status).toBe(200);
    expect(served.json.result.content).toEqual([{ type: 'text', text: 'hello' }]);
  });
});

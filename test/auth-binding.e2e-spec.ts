// What a caller gets is bound to who it is (principalOf: the token's subject, else `client:<clientId>`): a legacy
// session (Streamable HTTP and HTTP+SSE), a resumable stream, a modern-era requestState and a task are refused to any
// other caller, as if they did not exist. McpServer.endSessionsOf ends one principal's sessions on every instance
// sharing the event bus and the session store, and leaves its tasks alone. On the server mount, as Express routes and
// as Fastify routes.
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { TASKS_EXTENSION_ID } from '@conduit-mcp/core';
import {
  InMemoryEventBus,
  InMemorySessionStore,
  McpAuthInfo,
  McpCtx,
  McpModule,
  McpRequestContext,
  McpServer,
  McpTool,
} from '@conduit-mcp/server';
import { createHttpApp, freePort, HTTP_MOUNTS } from './support/http-adapters';
import { TripPlanner } from './support/rounds-fixture';
import { TaskJobs } from './support/tasks-fixture';

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const JSON_AND_SSE = 'application/json, text/event-stream';

// Fixed tokens: two users, a second token of alice's (as a refresh gives), and two client-credentials tokens, which
// name a client and no user.
const TOKENS: Record<string, McpAuthInfo> = {
  alice: { subject: 'alice', clientId: 'notes-app', scopes: [], claims: { sub: 'alice' } },
  'alice-refreshed': { subject: 'alice', clientId: 'notes-app', scopes: [], claims: { sub: 'alice' } },
  bob: { subject: 'bob', clientId: 'notes-app', scopes: [], claims: { sub: 'bob' } },
  svc: { clientId: 'svc', scopes: [], claims: { client_id: 'svc' } },
  batch: { clientId: 'batch', scopes: [], claims: { client_id: 'batch' } },
};
const verifier = { type: 'custom' as const, verify: (token: string) => Promise.resolve(TOKENS[token]) };

@Injectable()
class WhoTools {
  @McpTool({ name: 'whoami', description: 'Who the request speaks for, in which session' })
  whoami(@McpCtx() ctx: McpRequestContext) {
    return {
      subject: ctx.auth?.subject ?? null,
      clientId: ctx.auth?.clientId ?? null,
      session: ctx.sessionId ?? null,
    };
  }
}

interface Reply {
  status: number;
  headers: Headers;
  json: any;
}

interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** The events of an SSE response as they come; `next` resolves undefined once the server ended the stream. */
function sseEvents(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    async next(): Promise<SseEvent | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const field = (name: string) => new RegExp(`^${name}: ?(.*)$`, 'm').exec(block)?.[1];
          const [id, data] = [field('id'), field('data')];
          if (id === undefined && data === undefined) continue; // a keep-alive comment
          return { id, event: field('event') ?? 'message', data: data ?? '' };
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += value;
      }
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}

describe.each(HTTP_MOUNTS)('binding to the caller (%s adapter, %s mount)', (adapter, mount) => {
  const store = new InMemorySessionStore();
  const bus = new InMemoryEventBus();
  let resource: string;
  let app: INestApplication;
  let url: string;
  const cleanups: Array<() => unknown> = [];

  /** An instance of the server; every instance shares the session store and the event bus. */
  async function instance(port = 0): Promise<INestApplication> {
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'bound',
          version: '1.0.0',
          http: { mount },
          sessionStore: store,
          eventBus: bus,
          tasks: { pollIntervalMs: 50 },
          auth: { resource, authorizationServers: ['https://idp.example.com'], token: verifier },
        }),
      ],
      providers: [WhoTools, TripPlanner, TaskJobs],
    })
    class BoundModule {}
    const created = await createHttpApp(BoundModule, adapter);
    await created.listen(port, '127.0.0.1');
    return created;
  }

  beforeAll(async () => {
    const port = await freePort();
    url = resource = `http://127.0.0.1:${port}/mcp`;
    app = await instance(port);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(() => app?.close());

  const bearer = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
  const urlOf = async (on: INestApplication) => (on === app ? url : `${await on.getUrl()}/mcp`);

  /** A POST of one message; an SSE answer is read to its end and its last message taken. */
  async function post(
    body: Record<string, unknown>,
    options: { token?: string; session?: string; on?: INestApplication; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const response = await fetch(await urlOf(options.on ?? app), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: JSON_AND_SSE,
        'mcp-protocol-version': LEGACY,
        ...bearer(options.token),
        ...(options.session ? { 'mcp-session-id': options.session } : {}),
        ...options.headers,
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const last = sse
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data: {'))
          .at(-1)
          ?.slice(6)
      : text;
    return { status: response.status, headers: response.headers, json: last ? JSON.parse(last) : undefined };
  }

  /** A GET or DELETE on the endpoint; the body of a GET that opened a stream is left to the caller. */
  async function request(
    method: 'GET' | 'DELETE',
    options: { token?: string; session: string; lastEventId?: string; on?: INestApplication },
  ): Promise<Response> {
    const abort = new AbortController();
    const response = await fetch(await urlOf(options.on ?? app), {
      method,
      headers: {
        accept: 'text/event-stream',
        'mcp-protocol-version': LEGACY,
        'mcp-session-id': options.session,
        ...bearer(options.token),
        ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}),
      },
      signal: abort.signal,
    });
    if (response.status === 200 && method === 'GET') cleanups.push(() => abort.abort());
    else await response.text();
    return response;
  }

  let nextId = 1;
  const call = (name: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'tools/call',
    params: { name, arguments: args, ...extra },
  });
  const rpc = (method: string, params: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params,
  });

  /** A legacy Streamable HTTP session of the caller `token` names, initialized. */
  async function open(token: string, on: INestApplication = app, capabilities: object = {}): Promise<string> {
    const opened = await post(
      rpc('initialize', { protocolVersion: LEGACY, capabilities, clientInfo: { name: 'binding', version: '1' } }),
      { token, on },
    );
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id')!;
    const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { token, session, on });
    expect(initialized.status).toBe(202);
    cleanups.push(() => request('DELETE', { token, session, on }).catch(() => undefined));
    return session;
  }

  const whoami = (token: string | undefined, session: string, on: INestApplication = app) =>
    post(call('whoami'), { token, session, on });

  /** Opens an HTTP+SSE session: its stream's events, and the message URL its `endpoint` event names. */
  async function openSse(token: string) {
    const abort = new AbortController();
    const response = await fetch(url.replace(/\/mcp$/, '/sse'), {
      headers: { accept: 'text/event-stream', ...bearer(token) },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    cleanups.push(() => abort.abort());
    const events = sseEvents(response);
    const endpoint = (await events.next())!;
    expect(endpoint.event).toBe('endpoint');
    return { events, messageUrl: new URL(endpoint.data, url).href };
  }

  const postMessage = async (messageUrl: string, body: unknown, token?: string) => {
    const response = await fetch(messageUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(body),
    });
    await response.text();
    return response.status;
  };

  describe('a legacy Streamable HTTP session', () => {
    it('serves only the subject that opened it: another subject or a client-only token gets 404, no token 401', async () => {
      const session = await open('alice');
      expect((await whoami('alice', session)).json.result.structuredContent).toEqual({
        subject: 'alice',
        clientId: 'notes-app',
        session,
      });

      for (const stranger of ['bob', 'svc']) {
        const posted = await whoami(stranger, session);
        expect(posted.status).toBe(404);
        expect(posted.json).toMatchObject({ error: { code: -32001, message: 'Session not found' } });
        expect((await request('GET', { token: stranger, session })).status).toBe(404);
        expect((await request('DELETE', { token: stranger, session })).status).toBe(404);
      }
      expect((await whoami(undefined, session)).status).toBe(401);
      expect((await request('GET', { session })).status).toBe(401);
      expect((await request('DELETE', { session })).status).toBe(401);

      // None of that touched the session: alice uses it, with a fresh token too, and she alone ends it.
      expect((await whoami('alice', session)).status).toBe(200);
      expect((await whoami('alice-refreshed', session)).json.result.structuredContent).toMatchObject({
        subject: 'alice',
        session,
      });
      expect((await request('GET', { token: 'alice', session })).status).toBe(200);
      expect((await request('DELETE', { token: 'alice', session })).status).toBe(204);
      expect((await whoami('alice', session)).status).toBe(404);
    });

    it('binds a client-credentials caller (no subject) to its client: another client, a user or nobody cannot use it', async () => {
      const session = await open('svc');
      expect((await whoami('svc', session)).json.result.structuredContent).toEqual({
        subject: null,
        clientId: 'svc',
        session,
      });
      await new Promise((resolve) => setImmediate(resolve)); // the record is written in the background
      expect((await store.get(session))?.principal).toBe('client:svc');
      for (const stranger of ['batch', 'alice']) {
        expect((await whoami(stranger, session)).status).toBe(404);
        expect((await request('GET', { token: stranger, session })).status).toBe(404);
        expect((await request('DELETE', { token: stranger, session })).status).toBe(404);
      }
      expect((await whoami(undefined, session)).status).toBe(401);
      expect((await whoami('svc', session)).status).toBe(200);
      // And the other way round: the client's token does not reach a user's session.
      const alices = await open('alice');
      expect((await whoami('svc', alices)).status).toBe(404);
    });

    it('resumes a stream (Last-Event-ID) for the subject that opened the session only', async () => {
      const session = await open('alice', app, { elicitation: {} });
      // A tool that asks the client a question: its answer streams, each event with an id to resume from.
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: JSON_AND_SSE,
          'mcp-protocol-version': LEGACY,
          'mcp-session-id': session,
          ...bearer('alice'),
        },
        body: JSON.stringify(call('plan_trip', { traveller: 'Ada' })),
      });
      const stream = sseEvents(response);
      cleanups.push(() => stream.cancel());
      let question: SseEvent | undefined;
      const ids: string[] = [];
      while (!question) {
        const event = (await stream.next())!;
        if (event.id) ids.push(event.id);
        if (event.data.includes('elicitation/create')) question = event;
      }
      const lastEventId = ids[0]; // the priming event: the question comes after it

      for (const stranger of ['bob', 'svc']) {
        expect((await request('GET', { token: stranger, session, lastEventId })).status).toBe(404);
      }
      expect((await request('GET', { session, lastEventId })).status).toBe(401);
      const resumed = await request('GET', { token: 'alice', session, lastEventId });
      expect(resumed.status).toBe(200);
      const replayed = sseEvents(resumed);
      cleanups.push(() => replayed.cancel());
      let again: SseEvent | undefined;
      while (!again?.data.includes('elicitation/create')) again = await replayed.next();
      expect(again.data).toBe(question.data);
    });
  });

  it('an HTTP+SSE session takes messages from the subject that opened it only', async () => {
    const { events, messageUrl } = await openSse('alice');
    const initialize = rpc('initialize', {
      protocolVersion: '2024-11-05',
      capabilities: {},
      clientInfo: { name: 'sse', version: '1' },
    });
    for (const stranger of ['bob', 'svc']) expect(await postMessage(messageUrl, initialize, stranger)).toBe(404);
    expect(await postMessage(messageUrl, initialize, undefined)).toBe(401);
    expect(await postMessage(messageUrl, initialize, 'alice')).toBe(202);
    expect(JSON.parse((await events.next())!.data)).toMatchObject({
      id: initialize.id,
      result: { protocolVersion: '2024-11-05' },
    });
  });

  describe('the modern era', () => {
    const meta = (capabilities: object) => ({
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'binding', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    });
    const modern = (method: string, params: Record<string, unknown>, token: string | undefined, name: string) =>
      post(
        { jsonrpc: '2.0', id: nextId++, method, params },
        { token, headers: { 'mcp-protocol-version': MODERN, 'mcp-method': method, 'mcp-name': name } },
      );

    it('refuses a requestState minted for one caller to any other (-32602), by default', async () => {
      const plan = { name: 'plan_trip', arguments: { traveller: 'Ada' }, _meta: meta({ elicitation: {} }) };
      const first = await modern('tools/call', plan, 'alice', 'plan_trip');
      expect(first.json.result).toMatchObject({ resultType: 'input_required', inputRequests: { city: {} } });
      const retry = {
        ...plan,
        inputResponses: { city: { action: 'accept', content: { city: 'Oslo' } } },
        requestState: first.json.result.requestState,
      };
      for (const stranger of ['bob', 'svc']) {
        const replayed = await modern('tools/call', retry, stranger, 'plan_trip');
        expect(replayed.json.error).toEqual({
          code: -32602,
          message: 'Invalid requestState: issued for another request or caller',
        });
      }
      expect((await modern('tools/call', retry, undefined, 'plan_trip')).status).toBe(401);
      // Its own caller goes on, with a fresh token too: the state carried the city to the second question.
      const second = await modern('tools/call', retry, 'alice-refreshed', 'plan_trip');
      expect(second.json.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { confirm: { params: { message: expect.stringContaining('Book Oslo for Ada') } } },
      });
    });

    it("does not show one caller's task to another (tasks/get -32602)", async () => {
      const tasks = meta({ extensions: { [TASKS_EXTENSION_ID]: {} } });
      const created = await modern(
        'tools/call',
        { name: 'slow', arguments: { ms: 100 }, _meta: tasks },
        'alice',
        'slow',
      );
      expect(created.json.result).toMatchObject({ resultType: 'task', status: 'working' });
      const { taskId } = created.json.result as { taskId: string };
      for (const stranger of ['bob', 'svc']) {
        const peek = await modern('tasks/get', { taskId, _meta: tasks }, stranger, taskId);
        expect(peek.json.error).toMatchObject({ code: -32602 });
      }
      const own = await modern('tasks/get', { taskId, _meta: tasks }, 'alice', taskId);
      expect(own.json.result).toMatchObject({ taskId });
    });
  });

  it("legacy tasks belong to the principal: another subject can neither get nor list them, the owner's other session can", async () => {
    const alice = await open('alice');
    const created = await post(call('slow', { ms: 100 }, { task: {} }), { token: 'alice', session: alice });
    const { taskId } = created.json.result.task as { taskId: string };
    expect(taskId).toEqual(expect.any(String));

    const bob = await open('bob');
    const svc = await open('svc');
    for (const [token, session] of [
      ['bob', bob],
      ['svc', svc],
    ]) {
      expect((await post(rpc('tasks/get', { taskId }), { token, session })).json.error).toMatchObject({
        code: -32602,
      });
      const listed = await post(rpc('tasks/list'), { token, session });
      expect(listed.json.result.tasks.map((task: { taskId: string }) => task.taskId)).not.toContain(taskId);
    }
    const again = await open('alice');
    const listed = await post(rpc('tasks/list'), { token: 'alice', session: again });
    expect(listed.json.result.tasks.map((task: { taskId: string }) => task.taskId)).toContain(taskId);
    expect((await post(rpc('tasks/get', { taskId }), { token: 'alice', session: again })).json.result).toMatchObject({
      taskId,
    });
  });

  it('McpServer.endSessionsOf ends a principal’s sessions on every instance sharing the bus and store, not its tasks', async () => {
    const other = await instance();
    cleanups.unshift(() => other.close()); // closed last, after the sessions' DELETEs

    const here = await open('alice');
    const standalone = await request('GET', { token: 'alice', session: here });
    expect(standalone.status).toBe(200);
    const standaloneEvents = sseEvents(standalone);
    expect((await standaloneEvents.next())?.id).toEqual(expect.any(String)); // primed: the stream is open
    const sse = await openSse('alice');
    const there = await open('alice', other);
    const bobHere = await open('bob');
    const bobThere = await open('bob', other);
    const svcHere = await open('svc');
    const task = await post(call('slow', { ms: 300 }, { task: {} }), { token: 'alice', session: here });
    const { taskId } = task.json.result.task as { taskId: string };

    // This instance holds two of alice's sessions live (Streamable HTTP, HTTP+SSE); the other ends its own.
    expect(await app.get(McpServer).endSessionsOf('alice')).toBe(2);
    expect(await standaloneEvents.next()).toBeUndefined(); // the GET stream ended
    expect(await sse.events.next()).toBeUndefined(); // and the HTTP+SSE one
    await new Promise((resolve) => setImmediate(resolve)); // the records are deleted in the background
    for (const session of [here, there]) {
      for (const on of [app, other]) expect((await whoami('alice', session, on)).status).toBe(404);
      expect(await store.get(session)).toBeUndefined();
    }
    expect(await postMessage(sse.messageUrl, rpc('ping'), 'alice')).toBe(404);

    expect((await whoami('bob', bobHere)).status).toBe(200);
    expect((await whoami('bob', bobThere, other)).status).toBe(200);
    expect((await whoami('svc', svcHere)).status).toBe(200);

    // The task goes on: alice's next session finds it (on the instance whose task store holds it), and sees it end.
    const next = await open('alice');
    let status: string | undefined;
    for (let attempt = 0; attempt < 100 && status !== 'completed'; attempt++) {
      const got = await post(rpc('tasks/get', { taskId }), { token: 'alice', session: next });
      status = got.json.result?.status;
      if (status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe('completed');
  });
});

describe('a requestState.principal hook of the app', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'tenants',
          version: '1.0.0',
          eras: ['modern'],
          auth: { resource: url, authorizationServers: ['https://idp.example.com'], token: verifier },
          // The app binds states to a tenant, whoever of it asks.
          requestState: { principal: (facts) => String(facts.headers['x-tenant']) },
        }),
      ],
      providers: [TripPlanner],
    })
    class TenantModule {}
    app = await createHttpApp(TenantModule, 'express');
    await app.listen(port, '127.0.0.1');
  });
  afterAll(() => app?.close());

  const plan = (token: string, tenant: string, extra: Record<string, unknown> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: JSON_AND_SSE,
        authorization: `Bearer ${token}`,
        'x-tenant': tenant,
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'plan_trip',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'plan_trip',
          arguments: { traveller: 'Ada' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          },
          ...extra,
        },
      }),
    }).then((response) => response.json() as Promise<Record<string, any>>);

  it('wins over the default: the state is bound to what the hook says, not to the token', async () => {
    const first = await plan('alice', 'acme');
    const retry = {
      inputResponses: { city: { action: 'accept', content: { city: 'Oslo' } } },
      requestState: first.result.requestState,
    };
    expect((await plan('bob', 'acme', retry)).result).toMatchObject({ resultType: 'input_required' });
    expect((await plan('alice', 'globex', retry)).error).toMatchObject({ code: -32602 });
  });
});

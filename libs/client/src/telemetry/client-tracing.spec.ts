import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import { IncomingHttpHeaders, ServerResponse, createServer, request } from 'node:http';
import { AddressInfo } from 'node:net';
import { INestApplication } from '@nestjs/common';
import { json, sseEvent, sseHead, startRawServer } from '../../../../test/client/transport-test.fixtures';
import { ClientApp, startClientApp } from '../../../../test/support/client-app';
import { createHttpApp } from '../../../../test/support/http-adapters';
import { roundsModule } from '../../../../test/support/rounds-fixture';
import { McpInputResponder } from '../connection/input-responder.interface';
import { McpClient } from '../connection/mcp-client';
import { McpClientError } from '../errors/mcp-client.error';
import { McpServerConfig } from '../interfaces/mcp-client-options.interface';
import { ClientTransport } from '../transports/client-transport.interface';
import { createClientTransport } from '../transports/client-transport.factory';
import {
  MCP_CLIENT_CHANNELS,
  McpClientInputTrace,
  McpClientRequestEvent,
  McpClientRequestTrace,
} from './mcp-client.channels';
import { TraceRecorder, recordTraces } from './trace-recorder.fixtures-spec';

/** A POST that went through the proxy: its path, headers and JSON-RPC message. */
interface ProxiedPost {
  path: string;
  headers: IncomingHttpHeaders;
  message: { id?: string | number; method?: string; params?: Record<string, unknown> };
}

/** An HTTP proxy on 127.0.0.1:0 in front of `target`, recording what the server is sent. */
async function recordingProxy(target: string) {
  const { port: upstream } = new URL(target);
  const posts: ProxiedPost[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST')
        posts.push({ path: req.url ?? '', headers: req.headers, message: JSON.parse(body.toString('utf8')) });
      const forward = request(
        { host: '127.0.0.1', port: upstream, path: req.url, method: req.method, headers: req.headers, agent: false },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      res.on('close', () => forward.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    posts,
    /** The requests the server was sent (not notifications, not answers). */
    requests: () => posts.filter((post) => post.message.method !== undefined && post.message.id !== undefined),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers the two questions of the rounds fixture's `plan_trip`: Oslo, then yes. */
const tripResponder: McpInputResponder = {
  capabilities: () => ({ elicitation: { form: {} } }),
  answer: async (_method, params) =>
    JSON.stringify(params.requestedSchema).includes('city')
      ? { action: 'accept', content: { city: 'Oslo' } }
      : { action: 'accept', content: { confirm: true } },
  notify: () => undefined,
};

const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content[0]?.text;

describe('client traces against this project server, over HTTP', () => {
  let app: INestApplication;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let serverUrl: string;

  beforeAll(async () => {
    app = await createHttpApp(roundsModule({ path: '/mcp' }), 'express');
    await app.listen(0, '127.0.0.1');
    serverUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    proxy = await recordingProxy(serverUrl);
  });

  afterAll(async () => {
    await proxy?.close();
    await app?.close();
  });

  describe('requests (conduit-mcp:client:request)', () => {
    const caller = new AsyncLocalStorage<string>();
    const clients: McpClient[] = [];
    const transports: ClientTransport[] = [];
    /** Starts and writes, in order, across the client's requests. */
    let log: string[] = [];
    let callers: Array<string | undefined> = [];
    /** What the `start` subscriber sets: a fresh span id per request, or what a test says. */
    let context: (trace: McpClientRequestTrace) => McpClientRequestTrace['traceContext'];
    let traces: TraceRecorder<McpClientRequestTrace> | undefined;
    let spans = 0;

    const freshSpan = () => ({
      traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${(++spans).toString(16).padStart(16, '0')}-01`,
      tracestate: 'conduit=test',
    });

    function traceRequests(): TraceRecorder<McpClientRequestTrace> {
      traces = recordTraces<McpClientRequestTrace>(MCP_CLIENT_CHANNELS.request, (trace) => {
        if (trace.client !== 'traced') return;
        log.push(`start ${trace.method}`);
        callers.push(caller.getStore());
        Object.assign(trace.traceContext, context(trace));
      });
      return traces;
    }

    /** The traces of this suite's clients. */
    const ours = (recorder: TraceRecorder<McpClientRequestTrace>) =>
      recorder.traces().filter((trace) => trace.client === 'traced');

    function client(transport: McpServerConfig['transport'], era: string): McpClient {
      const created = new McpClient(
        { id: 'rounds', transport, era },
        { name: 'traced', servers: [], requestTimeoutMs: 10_000 },
        tripResponder,
        (config) => {
          const made = createClientTransport(config);
          const send = made.send.bind(made);
          made.send = (message, options) => {
            if ('method' in message && 'id' in message) log.push(`write ${message.method}`);
            return send(message, options);
          };
          transports.push(made);
          return made;
        },
      );
      clients.push(created);
      return created;
    }

    /** What the server was sent in `_meta`, by request id, for the requests since `from`. */
    const sentMeta = (from: number) =>
      new Map(
        proxy
          .requests()
          .slice(from)
          .map((post) => [String(post.message.id), post.message.params?._meta as Record<string, unknown>]),
      );

    beforeEach(() => {
      log = [];
      callers = [];
      context = () => freshSpan();
    });

    afterEach(async () => {
      traces?.stop();
      traces = undefined;
      await Promise.all(clients.splice(0).map((created) => created.close()));
      transports.length = 0;
    });

    it("traces the era probe and every MRTR round, each started in the caller's context before its write (modern)", async () => {
      const recorder = traceRequests();
      const from = proxy.requests().length;
      const planner = client({ type: 'http', url: proxy.url('/mcp') }, 'auto');
      await caller.run('connecting', () => planner.connect());
      const result = await caller.run('planning', () => planner.callTool('plan_trip', { traveller: 'Ada' }));
      expect(text(result)).toMatch(/^Booked Oslo for Ada/);

      const traced = ours(recorder);
      const methods = ['server/discover', 'tools/list', 'tools/call', 'tools/call', 'tools/call'];
      expect(traced.map((trace) => trace.method)).toEqual(methods);
      expect(log).toEqual(methods.flatMap((method) => [`start ${method}`, `write ${method}`]));
      expect(callers).toEqual(['connecting', 'planning', 'planning', 'planning', 'planning']);
      for (const trace of traced) expect(recorder.phasesOf(trace)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
      expect(new Set(traced.map((trace) => trace.requestId)).size).toBe(traced.length);
      expect(traced[2]).toEqual({
        client: 'traced',
        server: 'rounds',
        method: 'tools/call',
        era: 'modern',
        target: 'plan_trip',
        requestId: expect.any(String),
        transport: 'streamable-http',
        protocolVersion: '2026-07-28',
        traceContext: expect.objectContaining({ tracestate: 'conduit=test' }),
        status: 'ok',
        durationMs: expect.any(Number),
      });
      // What each start set is what the server got in that request's params._meta, beside the envelope's keys.
      const meta = sentMeta(from);
      expect(meta.size).toBe(traced.length);
      for (const trace of traced) {
        expect(meta.get(trace.requestId)).toMatchObject({
          ...trace.traceContext,
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        });
      }
    });

    it('traces initialize at the revision it asks for, and names the session (legacy Streamable HTTP)', async () => {
      const recorder = traceRequests();
      const from = proxy.requests().length;
      const planner = client({ type: 'http', url: proxy.url('/mcp') }, 'legacy');
      await planner.connect();
      const result = await planner.callTool('plan_trip', { traveller: 'Bo' });
      expect(text(result)).toMatch(/^Booked Oslo for Bo/);
      const [initialize, call, ...rest] = ours(recorder);
      expect(rest).toEqual([]);
      expect(initialize).toMatchObject({ method: 'initialize', era: 'legacy', protocolVersion: '2025-11-25' });
      expect(initialize).not.toHaveProperty('sessionId');
      const sessionId = transports[0].sessionId;
      expect(sessionId).toEqual(expect.any(String));
      expect(call).toMatchObject({
        method: 'tools/call',
        era: 'legacy',
        target: 'plan_trip',
        transport: 'streamable-http',
        protocolVersion: '2025-11-25',
        sessionId,
        status: 'ok',
      });
      const meta = sentMeta(from);
      expect(meta.get(initialize.requestId)).toEqual(initialize.traceContext);
      expect(meta.get(call.requestId)).toEqual(call.traceContext);
    });

    it('names the HTTP+SSE transport and its session', async () => {
      const recorder = traceRequests();
      const legacy = client({ type: 'sse', url: proxy.url('/sse') }, 'legacy');
      await legacy.connect();
      expect((await legacy.listTools()).length).toBeGreaterThan(0);
      const posted = proxy.posts[proxy.posts.length - 1].path;
      const sessionId = new URL(posted, serverUrl).searchParams.get('sessionId');
      expect(sessionId).toEqual(expect.any(String));
      const list = ours(recorder).find((trace) => trace.method === 'tools/list');
      expect(list).toMatchObject({ transport: 'sse', sessionId, era: 'legacy', status: 'ok' });
    });

    it('keeps the Mcp-* headers, and sends nothing of a malformed trace context (modern)', async () => {
      traceRequests();
      const weather = client({ type: 'http', url: proxy.url('/mcp') }, 'modern');
      await weather.connect();
      context = () => ({ traceparent: '00-not-a-trace-parent-01', tracestate: 'conduit=test' });
      const from = proxy.requests().length;
      const result = await weather.callTool('regional_weather', { city: 'Oslo', region: 'Vestland' });
      expect(text(result)).toBe('Sunny in Oslo (Vestland).');
      const sent = proxy.requests().slice(from);
      const call = sent.find((post) => post.message.method === 'tools/call')!;
      expect(call.headers).toMatchObject({ 'mcp-method': 'tools/call', 'mcp-name': 'regional_weather' });
      expect(call.headers['mcp-param-region']).toBeDefined();
      for (const post of sent) {
        expect(post.message.params?._meta).not.toHaveProperty('traceparent');
        expect(post.message.params?._meta).not.toHaveProperty('tracestate');
      }
    });

    it('publishes a failed request with error before asyncStart and asyncEnd', async () => {
      const recorder = traceRequests();
      const failing = client({ type: 'http', url: proxy.url('/mcp') }, 'modern');
      await failing.connect();
      const error = await failing.callTool('no_such_tool').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(McpClientError);
      const failed = ours(recorder).find((trace) => trace.method === 'tools/call')!;
      expect(recorder.phasesOf(failed)).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
      expect(failed).toMatchObject({
        target: 'no_such_tool',
        status: 'error',
        errorKind: (error as McpClientError).kind,
        errorCode: (error as McpClientError).code,
        error,
      });
    });

    it('with no tracing subscriber: no trace context is sent, and the plain event is as before', async () => {
      const events: McpClientRequestEvent[] = [];
      const onEvent = (event: unknown) => {
        if ((event as McpClientRequestEvent).client === 'traced') events.push(event as McpClientRequestEvent);
      };
      subscribe(MCP_CLIENT_CHANNELS.request, onEvent);
      try {
        const weather = client({ type: 'http', url: proxy.url('/mcp') }, 'modern');
        const from = proxy.requests().length;
        await weather.callTool('regional_weather', { city: 'Oslo', region: 'Vestland' });
        const sent = proxy.requests().slice(from);
        expect(sent.length).toBeGreaterThan(0);
        for (const post of sent) expect(post.message.params?._meta).not.toHaveProperty('traceparent');
        const scope = {
          client: 'traced',
          server: 'rounds',
          era: 'modern',
          status: 'ok',
          durationMs: expect.any(Number),
        };
        expect(events).toEqual(sent.map((post) => ({ ...scope, method: post.message.method })));
      } finally {
        unsubscribe(MCP_CLIENT_CHANNELS.request, onEvent);
      }
    });
  });

  describe('questions (conduit-mcp:client:input)', () => {
    const handling = new AsyncLocalStorage<string>();
    const start = tracingChannel<unknown, McpClientInputTrace>(MCP_CLIENT_CHANNELS.input).start;
    let traces: TraceRecorder<McpClientInputTrace>;
    let client: ClientApp | undefined;

    beforeEach(() => {
      traces = recordTraces<McpClientInputTrace>(MCP_CLIENT_CHANNELS.input);
      start.bindStore(handling, (trace) => `${trace.era} ${trace.method}`);
    });

    afterEach(async () => {
      start.unbindStore(handling);
      traces.stop();
      await client?.close();
      client = undefined;
    });

    it.each(['legacy', 'modern'] as const)(
      'enters the stores bound to start around the @OnElicitation handler (%s)',
      async (era) => {
        client = await startClientApp({ id: 'rounds', transport: { type: 'http', url: `${serverUrl}/mcp` }, era });
        const seen: Array<string | undefined> = [];
        client.handlers.elicitationAnswer = async (params) => {
          seen.push(handling.getStore());
          await new Promise((resolve) => setTimeout(resolve, 1));
          seen.push(handling.getStore());
          return JSON.stringify(params.requestedSchema).includes('city')
            ? { action: 'accept', content: { city: 'Oslo' } }
            : { action: 'accept', content: { confirm: true } };
        };
        expect(text(await client.client.callTool('plan_trip', { traveller: 'Cy' }))).toMatch(/^Booked Oslo/);
        expect(seen).toEqual(Array(4).fill(`${era} elicitation/create`));
        const asked = traces.traces().filter((trace) => trace.client === 'e2e-client');
        expect(asked).toHaveLength(2);
        for (const trace of asked) {
          expect(traces.phasesOf(trace)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
          expect(trace).toMatchObject({
            client: 'e2e-client',
            server: 'rounds',
            method: 'elicitation/create',
            era,
            status: 'ok',
            durationMs: expect.any(Number),
          });
        }
        if (era === 'modern') expect(asked.map((trace) => trace.traceContext)).toEqual([{}, {}]);
      },
    );

    it('publishes error for a handler that failed (modern)', async () => {
      client = await startClientApp({
        id: 'rounds',
        transport: { type: 'http', url: `${serverUrl}/mcp` },
        era: 'modern',
      });
      client.handlers.elicitationAnswer = () => Promise.reject(new Error('no person at the keyboard'));
      await expect(client.client.callTool('plan_trip', { traveller: 'Di' })).rejects.toBeInstanceOf(McpClientError);
      const [failed] = traces.traces().filter((trace) => trace.client === 'e2e-client');
      expect(traces.phasesOf(failed)).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
      expect(failed).toMatchObject({ method: 'elicitation/create', status: 'error' });
    });
  });
});

describe("input traces carry the trace context of a legacy server's request", () => {
  const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const META: Record<string, Record<string, unknown>> = {
    traced: { traceparent: TRACEPARENT, tracestate: 'server=1' },
    malformed: { traceparent: TRACEPARENT.toUpperCase(), tracestate: 'server=1' },
  };
  let raw: Awaited<ReturnType<typeof startRawServer>>;
  let client: ClientApp;
  let traces: TraceRecorder<McpClientInputTrace>;

  // A legacy Streamable HTTP server that asks one elicitation on the stream of each tools/call, with the `_meta` the
  // tool's name picks, and answers the call once the client answered it.
  beforeAll(async () => {
    let asking: { res: ServerResponse; id: unknown } | undefined;
    raw = await startRawServer((req, res, body) => {
      if (req.method !== 'POST') return void res.writeHead(405, { Allow: 'POST' }).end();
      const message = JSON.parse(body) as { id?: string | number; method?: string; params?: { name?: string } };
      if (message.method === 'initialize') {
        const serverInfo = { name: 'asking', version: '1.0.0' };
        return json(res, 200, {
          jsonrpc: '2.0',
          id: message.id,
          result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo },
        });
      }
      if (message.method === 'tools/call') {
        sseHead(res);
        const params = {
          message: 'Sure?',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          _meta: META[message.params?.name ?? ''],
        };
        res.write(sseEvent({ jsonrpc: '2.0', id: 'question', method: 'elicitation/create', params }));
        asking = { res, id: message.id };
        return;
      }
      res.writeHead(202).end();
      if (message.id === 'question' && asking) {
        const result = { content: [{ type: 'text', text: 'asked' }] };
        asking.res.end(sseEvent({ jsonrpc: '2.0', id: asking.id, result }));
        asking = undefined;
      }
    });
    client = await startClientApp({ id: 'asking', transport: { type: 'http', url: raw.url }, era: 'legacy' });
  });

  afterAll(async () => {
    await client?.close();
    await raw?.close();
  });

  beforeEach(() => (traces = recordTraces<McpClientInputTrace>(MCP_CLIENT_CHANNELS.input)));
  afterEach(() => traces.stop());

  it.each([
    ['well formed: kept', 'traced', { traceparent: TRACEPARENT, tracestate: 'server=1' }],
    ['malformed: dropped', 'malformed', {}],
    ['absent', 'plain', {}],
  ])('%s', async (_name, tool, expected) => {
    expect(text(await client.client.callTool(tool))).toBe('asked');
    const [trace] = traces.traces().filter((each) => each.server === 'asking');
    expect(trace).toMatchObject({ method: 'elicitation/create', era: 'legacy', status: 'ok' });
    expect(trace.traceContext).toEqual(expected);
  });
});

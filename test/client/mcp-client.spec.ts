import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Injectable, Module } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { ClientCapabilities, JsonRpcMessage, Transport, createInMemoryTransportPair } from '@conduit-mcp/core';
import { McpArgs, McpCtx, McpModule, McpRequestContext, McpServer, McpTool } from '@conduit-mcp/server';
import { McpClientError } from '../../libs/client/src/errors/mcp-client.error';
import { McpClientModuleOptions } from '../../libs/client/src/interfaces/mcp-client-options.interface';
import { ClientTransport } from '../../libs/client/src/transports/client-transport.interface';
import {
  McpInputContext,
  McpInputMethod,
  McpInputRefusal,
  McpInputResponder,
} from '../../libs/client/src/connection/input-responder.interface';
import { McpClient } from '../../libs/client/src/connection/mcp-client';
import { MCP_CLIENT_CHANNELS } from '../../libs/client/src/telemetry/mcp-client.channels';
import { ServerUnreachableError } from '../../libs/client/src/transports/client-transport.errors';
import { createClientTransport } from '../../libs/client/src/transports/client-transport.factory';

@Injectable()
class Tools {
  @McpTool({ name: 'echo', input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } })
  echo(@McpArgs() { text }: { text: string }) {
    return text;
  }

  @McpTool({ name: 'confirm' })
  async confirm(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('ok', {
      message: 'Sure?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
    return `answer: ${answer.action}`;
  }

  @McpTool({ name: 'slow' })
  async slow(@McpCtx() ctx: McpRequestContext) {
    for (let step = 1; step <= 3; step++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      ctx.progress(step, 3);
    }
    return 'slow done';
  }

  @McpTool({
    name: 'bad_header',
    input: { type: 'object', properties: { where: { type: 'object', 'x-mcp-header': 'Where' } } },
  })
  badHeader() {
    return 'unreachable over modern HTTP';
  }

  @McpTool({ name: 'forever' })
  forever(@McpCtx() ctx: McpRequestContext) {
    return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
  }
}

/** Answers elicitations from a field the test sets, and records notifications. */
class TestResponder implements McpInputResponder {
  answerWith: Record<string, unknown> | Error = { action: 'accept', content: { ok: true } };
  delayMs = 0;
  readonly asked: Array<{ method: McpInputMethod; ctx: McpInputContext }> = [];
  readonly notified: Array<{ method: string; params: Record<string, unknown> }> = [];

  capabilities(): ClientCapabilities {
    return { elicitation: { form: {} } };
  }

  async answer(
    method: McpInputMethod,
    _params: Record<string, unknown>,
    ctx: McpInputContext,
  ): Promise<Record<string, unknown>> {
    this.asked.push({ method, ctx });
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.answerWith instanceof Error) throw this.answerWith;
    return this.answerWith;
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.notified.push({ method, params });
  }
}

/** A ClientTransport over one side of an in-memory pair (the other side is served by the McpServer). */
function inMemory(server: McpServer, sent: JsonRpcMessage[]): () => ClientTransport {
  return () => {
    const [client, served] = createInMemoryTransportPair();
    server.connect(served);
    const transport: ClientTransport & { inner: Transport } = {
      inner: client,
      start: async () => undefined,
      send: (message) => (sent.push(message), client.send(message)),
      close: () => client.close(),
    };
    client.onmessage = (message) => transport.onmessage?.(message);
    client.onclose = () => transport.onclose?.();
    return transport;
  };
}

describe('McpClient against this project server (in memory)', () => {
  let moduleRef: TestingModule;
  let server: McpServer;
  const options: McpClientModuleOptions = {
    name: 'unit-client',
    version: '1.0.0',
    servers: [],
    requestTimeoutMs: 2_000,
  };

  beforeAll(async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'peer', version: '2.0.0', http: false, pageSize: 2 })],
      providers: [Tools],
    })
    class PeerModule {}
    moduleRef = await Test.createTestingModule({ imports: [PeerModule] }).compile();
    await moduleRef.init();
    server = moduleRef.get(McpServer);
  });
  afterAll(() => moduleRef.close());

  function connect(era: string, responder = new TestResponder(), clientOptions: Partial<McpClientModuleOptions> = {}) {
    const sent: JsonRpcMessage[] = [];
    const client = new McpClient(
      { id: 'peer', transport: { type: 'stdio', command: 'unused' }, era },
      { ...options, ...clientOptions },
      responder,
      inMemory(server, sent),
    );
    return { client, responder, sent };
  }

  it.each([
    ['auto', 'modern', '2026-07-28'],
    ['modern', 'modern', '2026-07-28'],
    ['legacy', 'legacy', '2025-11-25'],
    ['2025-06-18', 'legacy', '2025-06-18'],
  ])('negotiates era %s as %s %s and learns the server', async (era, expectedEra, revision) => {
    const { client } = connect(era);
    await client.connect();
    expect([client.era, client.protocolVersion]).toEqual([expectedEra, revision]);
    expect(client.serverInfo).toMatchObject({ name: 'peer', version: '2.0.0' });
    expect(client.serverCapabilities).toHaveProperty('tools');
    expect(await client.callTool('echo', { text: 'hi' })).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    await client.close();
  });

  it('lists every page, or one', async () => {
    const { client } = connect('modern');
    // bad_header declares x-mcp-header on an object, which no client can mirror: it is left out.
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['echo', 'confirm', 'slow', 'forever']);
    expect(await client.listTools({ all: false })).toHaveLength(2);
    await client.close();
  });

  it.each(['legacy', 'modern'])('answers the server question through the responder (%s)', async (era) => {
    const { client, responder, sent } = connect(era);
    expect(await client.callTool('confirm')).toMatchObject({ content: [{ text: 'answer: accept' }] });
    expect(responder.asked).toEqual([
      { method: 'elicitation/create', ctx: expect.objectContaining({ client: 'unit-client', serverId: 'peer', era }) },
    ]);
    if (era === 'modern') {
      // The retry carries the answer under the server's key, with a new id.
      const calls = sent.filter((m) => 'method' in m && m.method === 'tools/call') as Array<{
        id: number;
        params: Record<string, unknown>;
      }>;
      expect(calls).toHaveLength(2);
      expect(calls[1].id).not.toBe(calls[0].id);
      expect(calls[1].params.inputResponses).toEqual({ ok: { action: 'accept', content: { ok: true } } });
    } else {
      expect(responder.asked[0].ctx.relatedRequestId).toEqual(expect.any(Number));
    }
    await client.close();
  });

  it('fails a modern call with kind input_handler when the handler refuses', async () => {
    const { client, responder } = connect('modern');
    responder.answerWith = new McpInputRefusal(-1, 'no');
    await expect(client.callTool('confirm')).rejects.toMatchObject({ kind: 'input_handler' });
    await client.close();
  });

  it('answers a legacy question with the refusal as the JSON-RPC error', async () => {
    const { client, responder, sent } = connect('legacy');
    responder.answerWith = new McpInputRefusal(-1, 'declined by policy');
    const result = await client.callTool('confirm').catch((error: McpClientError) => error);
    expect(result).toBeInstanceOf(McpClientError);
    expect(sent).toContainEqual(expect.objectContaining({ error: { code: -1, message: 'declined by policy' } }));
    await client.close();
  });

  it('pauses the deadline of a legacy call while its question is answered', async () => {
    const { client, responder } = connect('legacy');
    responder.delayMs = 300;
    await expect(client.callTool('confirm', {}, { timeout: 200 })).resolves.toMatchObject({
      content: [{ text: 'answer: accept' }],
    });
    await client.close();
  });

  it.each(['legacy', 'modern'])('reports progress, and times out and cancels (%s)', async (era) => {
    const { client, sent } = connect(era);
    const progress: number[] = [];
    await client.callTool('slow', {}, { onProgress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
    await expect(client.callTool('forever', {}, { timeout: 50 })).rejects.toMatchObject({ kind: 'timeout' });
    const controller = new AbortController();
    const call = client.callTool('forever', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(call).rejects.toMatchObject({ kind: 'cancelled' });
    expect(sent.filter((m) => 'method' in m && m.method === 'notifications/cancelled')).toHaveLength(2);
    await client.close();
  });

  it.each(['legacy', 'modern'] as const)(
    'publishes its requests and the questions it answered on diagnostics_channel (%s)',
    async (era) => {
      const events: Array<[string, Record<string, unknown>]> = [];
      const onRequest = (event: unknown) => events.push(['request', event as Record<string, unknown>]);
      const onInput = (event: unknown) => events.push(['input', event as Record<string, unknown>]);
      const { client } = connect(era);
      await client.connect();
      subscribe(MCP_CLIENT_CHANNELS.request, onRequest);
      subscribe(MCP_CLIENT_CHANNELS.input, onInput);
      try {
        await client.callTool('confirm');
        await expect(client.callTool('nope')).rejects.toMatchObject({ kind: 'rpc' });
      } finally {
        unsubscribe(MCP_CLIENT_CHANNELS.request, onRequest);
        unsubscribe(MCP_CLIENT_CHANNELS.input, onInput);
      }
      const scope = { client: 'unit-client', server: 'peer', era };
      const asked = ['input', { ...scope, method: 'elicitation/create', status: 'ok', durationMs: expect.any(Number) }];
      const called = ['request', { ...scope, method: 'tools/call', status: 'ok', durationMs: expect.any(Number) }];
      const failed = [
        'request',
        {
          ...scope,
          method: 'tools/call',
          status: 'error',
          errorKind: 'rpc',
          errorCode: -32602,
          durationMs: expect.any(Number),
        },
      ];
      // Legacy: the question comes while the call runs; modern: the first round answers input_required, then the retry.
      expect(events).toEqual(era === 'legacy' ? [asked, called, failed] : [called, asked, called, failed]);
      await client.close();
    },
  );

  it('turns JSON-RPC errors into kind rpc with code and data', async () => {
    const { client } = connect('modern');
    await expect(client.callTool('nope')).rejects.toMatchObject({ kind: 'rpc', code: -32602 });
    await expect(client.readResource('x://none')).rejects.toMatchObject({ kind: 'rpc', code: -32601 });
    await client.close();
  });

  it('listens for changes in the modern era and hands them to the responder', async () => {
    const { client, responder } = connect('modern');
    const handle = await client.listen({ toolsListChanged: true });
    expect(handle.acknowledged).toEqual({ toolsListChanged: true });
    server.setToolEnabled('slow', false);
    server.setToolEnabled('slow', true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(responder.notified.map((n) => n.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
    ]);
    handle.close();
    expect(await handle.closed).toBe('closed');
    await client.close();
    const legacy = connect('legacy').client;
    await expect(legacy.listen({})).rejects.toMatchObject({
      kind: 'protocol',
      message:
        "subscriptions/listen is part of the modern era only, and this connection negotiated the legacy era (2025-11-25); use subscribe() in the legacy era, or pin the server's era with era: 'modern'",
    });
    await expect(legacy.discover()).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringMatching(
        /^server\/discover is part of the modern era only, .*use the legacy era's initialize result/,
      ),
    });
    await legacy.close();
    const modern = connect('modern').client;
    await expect(modern.subscribe('notes://index')).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringMatching(
        /^resources\/subscribe is part of the legacy era only, .*use listen\(\) in the modern era/,
      ),
    });
    await modern.close();
  });
});

/** A ClientTransport whose server answers each request with what `answer` returns (its result). */
function scripted(
  answer: (method: string, params: Record<string, unknown>) => Record<string, unknown>,
  origin?: string,
) {
  return (): ClientTransport => {
    const transport: ClientTransport = {
      origin,
      start: async () => undefined,
      send: async (message) => {
        if (!('method' in message) || !('id' in message)) return;
        const result = answer(message.method, (message.params ?? {}) as Record<string, unknown>);
        setImmediate(() => transport.onmessage?.({ jsonrpc: '2.0', id: message.id, result }));
      },
      close: async () => transport.onclose?.(),
    };
    return transport;
  };
}

describe('McpClient in a modern input round (MRTR)', () => {
  it('checks every input request of a round before any handler runs: an undeclared one fails the call, asking no one', async () => {
    const responder = new TestResponder(); // declares form elicitation only
    const client = new McpClient(
      { id: 'asks', transport: { type: 'stdio', command: 'unused' }, era: 'modern' },
      { name: 'unit-client', servers: [], requestTimeoutMs: 2_000 },
      responder,
      scripted((method) =>
        method === 'server/discover'
          ? { resultType: 'complete', capabilities: { tools: {} } }
          : {
              resultType: 'input_required',
              inputRequests: {
                first: {
                  method: 'elicitation/create',
                  params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
                },
                second: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } },
              },
            },
      ),
    );
    await expect(client.callTool('anything')).rejects.toMatchObject({
      kind: 'protocol',
      message: 'The server asked for sampling/createMessage, which this client did not declare',
    });
    expect(responder.asked).toEqual([]);
    await client.close();
  });
});

describe('McpClient refusing server requests it cannot take', () => {
  // A server that answers discovery / initialize, and through which the test sends requests of the server's.
  function peer(era: 'legacy' | 'modern') {
    const sent: JsonRpcMessage[] = [];
    const responder = new TestResponder(); // declares form elicitation only
    let transport: ClientTransport | undefined;
    const factory = scripted((method) =>
      method === 'initialize'
        ? { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'p', version: '1' } }
        : { resultType: 'complete', capabilities: {} },
    );
    const client = new McpClient(
      { id: 'peer', transport: { type: 'stdio', command: 'unused' }, era },
      { name: 'unit-client', servers: [], requestTimeoutMs: 2_000 },
      responder,
      () => {
        transport = factory();
        const send = transport.send.bind(transport);
        transport.send = (message, options) => (sent.push(message), send(message, options));
        return transport;
      },
    );
    const ask = async (request: Record<string, unknown>) => {
      transport!.onmessage?.({ jsonrpc: '2.0', ...request });
      for (let i = 0; i < 50 && !sent.some((m) => 'id' in m && m.id === request.id && !('method' in m)); i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      return sent.find((m) => 'id' in m && m.id === request.id && !('method' in m));
    };
    return { client, ask, responder };
  }

  it('modern era: any server-to-client request gets -32601 (input comes as input_required results)', async () => {
    const { client, ask } = peer('modern');
    await client.connect();
    const answer = await ask({
      id: 's1',
      method: 'elicitation/create',
      params: { message: 'hi', requestedSchema: {} },
    });
    expect(answer).toMatchObject({
      id: 's1',
      error: { code: -32601, message: 'Server requests are not part of the modern era' },
    });
    await client.close();
  });

  it('legacy era: a request for a capability the client did not declare gets its own -32601, no handler runs', async () => {
    const { client, ask, responder } = peer('legacy');
    await client.connect();
    const answer = await ask({ id: 's2', method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } });
    expect(responder.asked).toEqual([]);
    expect(answer).toMatchObject({
      id: 's2',
      error: { code: -32601, message: 'This client does not handle sampling/createMessage' },
    });
    await client.close();
  });
});

describe('McpClient: the origin URL elicitations are compared with', () => {
  const asksOnce = () => {
    let asked = false;
    return (method: string): Record<string, unknown> => {
      if (method === 'server/discover') return { resultType: 'complete', capabilities: { tools: {} } };
      // A modern call over HTTP to a tool not listed yet lists the tools first (for its Mcp-Param-* headers).
      if (method === 'tools/list') return { resultType: 'complete', tools: [] };
      if (asked) return { resultType: 'complete', content: [] };
      asked = true;
      return {
        resultType: 'input_required',
        inputRequests: {
          ok: {
            method: 'elicitation/create',
            params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
          },
        },
      };
    };
  };

  it.each([
    [
      'the configured elicitation.origin, which wins over the transport’s',
      'https://app.example.com',
      'https://app.example.com',
    ],
    ['the transport’s when none is configured', undefined, 'http://127.0.0.1:9'],
  ])('is %s', async (_case, configured, expected) => {
    const responder = new TestResponder();
    const client = new McpClient(
      { id: 'asks', transport: { type: 'stdio', command: 'unused' }, era: 'modern' },
      { name: 'unit-client', servers: [], requestTimeoutMs: 2_000, elicitation: { origin: configured } },
      responder,
      scripted(asksOnce(), 'http://127.0.0.1:9'),
    );
    await client.callTool('anything');
    expect(responder.asked.map(({ ctx }) => ctx.origin)).toEqual([expected]);
    await client.close();
  });
});

describe('McpClient against a server that is not there', () => {
  it.each(['http', 'sse'] as const)('over %s: says the URL and the cause, not "fetch failed"', async (type) => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const url = `http://127.0.0.1:${port}/${type === 'http' ? 'mcp' : 'sse'}`;
    const client = new McpClient(
      { id: 'gone', transport: { type, url }, era: type === 'http' ? 'auto' : 'legacy' },
      { name: 'unit-client', servers: [], requestTimeoutMs: 2_000 },
      new TestResponder(),
      createClientTransport,
    );
    const failure = await client.connect().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpClientError);
    expect((failure as Error).message).toContain(
      `Cannot reach the MCP server at ${url}: connection refused (ECONNREFUSED)`,
    );
    expect((failure as Error).cause).toBeInstanceOf(ServerUnreachableError);
    await client.close();
  });

  it('over stdio: a server that dies at start says its exit code and the end of its stderr', async () => {
    const client = new McpClient(
      {
        id: 'crashes',
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: ['-e', "console.error('Error: Cannot find module ./server.js'); process.exit(1)"],
        },
        era: 'legacy',
      },
      { name: 'unit-client', servers: [], requestTimeoutMs: 5_000 },
      new TestResponder(),
      createClientTransport,
    );
    const failure = await client.connect().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpClientError);
    expect((failure as Error).message).toBe(
      `The MCP server "${process.execPath}" exited with code 1; the end of its stderr: Error: Cannot find module ./server.js`,
    );
    await client.close();
  });
});

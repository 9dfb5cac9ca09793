import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RawClient } from '../../../../../test/support/raw-client';
import {
  McpArgs,
  McpCtx,
  McpModule,
  McpModuleOptions,
  McpPrompt,
  McpRequestContext,
  McpResource,
  McpServer,
  McpTool,
} from '../../index';

const meta = (
  capabilities: Record<string, unknown> = { elicitation: {}, sampling: {}, roots: {} },
  extra: Record<string, unknown> = {},
) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  ...extra,
});

@Injectable()
class Flow {
  static runs = 0;

  @McpTool({ name: 'two_rounds', cache: { ttlMs: 5_000 } })
  async twoRounds(@McpCtx() ctx: McpRequestContext) {
    Flow.runs++;
    ctx.state.set('started', true);
    const name = await ctx.input.elicit('name', {
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    const color = await ctx.input.elicit('color', {
      message: 'Color?',
      requestedSchema: { type: 'object', properties: { color: { type: 'string' } } },
    });
    return `${String(name.content?.name)} likes ${String(color.content?.color)} (state kept: ${String(ctx.state.get('started'))})`;
  }

  @McpTool({ name: 'together' })
  async together(@McpCtx() ctx: McpRequestContext) {
    const [sample, roots] = await Promise.all([
      ctx.input.sample('s', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 }),
      ctx.input.roots('r'),
    ]);
    return `${sample.model} / ${roots.roots.length} roots`;
  }

  @McpTool({ name: 'chatty' })
  chatty(@McpCtx() ctx: McpRequestContext) {
    ctx.log('debug', 'fine detail');
    ctx.log('warning', 'careful');
    return 'done';
  }

  @McpPrompt({ name: 'ask_prompt' })
  async prompt(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('topic', {
      message: 'Topic?',
      requestedSchema: { type: 'object', properties: { topic: { type: 'string' } } },
    });
    return `Write about ${String(answer.content?.topic)}`;
  }

  @McpResource({ uri: 'memo://{id}', cache: { ttlMs: 1_000, scope: 'public' } })
  memo(@McpArgs() { id }: { id: string }) {
    return `memo ${id}`;
  }
}

async function serve(options: Partial<McpModuleOptions> = {}) {
  @Module({
    imports: [McpModule.forRoot({ name: 'modern', version: '1.0.0', http: false, ...options })],
    providers: [Flow],
  })
  class ModernModule {}
  const moduleRef = await Test.createTestingModule({ imports: [ModernModule] }).compile();
  await moduleRef.init();
  return { moduleRef, server: moduleRef.get(McpServer) };
}

describe('the modern era over an in-memory transport', () => {
  let moduleRef: Awaited<ReturnType<typeof serve>>['moduleRef'];
  let server: McpServer;
  let client: RawClient;

  beforeAll(async () => {
    ({ moduleRef, server } = await serve());
  });
  beforeEach(() => {
    client = RawClient.connect(server);
  });
  afterEach(() => client.close());
  afterAll(() => moduleRef.close());

  const result = async (method: string, params: Record<string, unknown>) => {
    const response = await client.request(method, params);
    if (response.error) throw Object.assign(new Error('JSON-RPC error'), response.error);
    return response.result as Record<string, unknown>;
  };

  it('runs a handler over several rounds, carrying earlier answers and ctx.state in requestState', async () => {
    Flow.runs = 0;
    const r1 = await result('tools/call', { name: 'two_rounds', _meta: meta() });
    expect(r1).toMatchObject({
      resultType: 'input_required',
      inputRequests: { name: { method: 'elicitation/create', params: { mode: 'form', message: 'Name?' } } },
    });
    expect(r1.requestState).toEqual(expect.any(String));
    const r2 = await result('tools/call', {
      name: 'two_rounds',
      _meta: meta(),
      requestState: r1.requestState,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(r2).toMatchObject({
      resultType: 'input_required',
      inputRequests: { color: { method: 'elicitation/create' } },
    });
    expect(r2.requestState).not.toBe(r1.requestState);
    // The third round answers only the new question: the first answer travels in requestState.
    const r3 = await result('tools/call', {
      name: 'two_rounds',
      _meta: meta(),
      requestState: r2.requestState,
      inputResponses: { color: { action: 'accept', content: { color: 'green' } }, stray: { action: 'accept' } },
    });
    expect(r3).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Ada likes green (state kept: true)' }],
    });
    expect(r3._meta).toEqual({ 'io.modelcontextprotocol/serverInfo': { name: 'modern', version: '1.0.0' } });
    expect(Flow.runs).toBe(3);
    // No server-to-client request was ever sent.
    expect(client.received.filter((m) => 'method' in m && 'id' in m)).toEqual([]);
  });

  it('asks every question of a round at once', async () => {
    const r1 = await result('tools/call', { name: 'together', _meta: meta() });
    expect(Object.keys(r1.inputRequests as object).sort()).toEqual(['r', 's']);
    const r2 = await result('tools/call', {
      name: 'together',
      _meta: meta(),
      requestState: r1.requestState,
      inputResponses: {
        s: { role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm1' },
        r: { roots: [{ uri: 'file:///a' }] },
      },
    });
    expect(r2).toMatchObject({ resultType: 'complete', content: [{ text: 'm1 / 1 roots' }] });
  });

  it('refuses a question the request did not declare the capability for (-32021), and answers that do not fit (-32602)', async () => {
    const refused = await client.request('tools/call', { name: 'together', _meta: meta({ roots: {} }) });
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    const bad = await client.request('tools/call', {
      name: 'two_rounds',
      _meta: meta(),
      inputResponses: { name: { action: 'accept', content: { name: 7 } } },
    });
    expect(bad.error).toMatchObject({ code: -32602, message: expect.stringContaining('"name"') });
    const tampered = await client.request('tools/call', {
      name: 'two_rounds',
      _meta: meta(),
      requestState: 'forged.tag',
    });
    expect(tampered.error).toMatchObject({ code: -32602, message: expect.stringContaining('requestState') });
  });

  it('serves MRTR on prompts/get too', async () => {
    const r1 = await result('prompts/get', { name: 'ask_prompt', _meta: meta() });
    expect(r1.resultType).toBe('input_required');
    const r2 = await result('prompts/get', {
      name: 'ask_prompt',
      _meta: meta(),
      requestState: r1.requestState,
      inputResponses: { topic: { action: 'accept', content: { topic: 'tides' } } },
    });
    expect(r2).toMatchObject({
      resultType: 'complete',
      messages: [{ role: 'user', content: { text: 'Write about tides' } }],
    });
  });

  it('sends log messages only when the request asked for a level, filtered by it', async () => {
    await result('tools/call', { name: 'chatty', _meta: meta({}) });
    expect(client.received.filter((m) => m.method === 'notifications/message')).toEqual([]);
    await result('tools/call', { name: 'chatty', _meta: meta({}, { 'io.modelcontextprotocol/logLevel': 'info' }) });
    expect(
      client.received
        .filter((m) => m.method === 'notifications/message')
        .map((m) => (m.params as { level: string }).level),
    ).toEqual(['warning']);
  });

  it('puts caching hints on lists and reads: the shortest ttl, private unless every entry is public', async () => {
    expect(await result('tools/list', { _meta: meta() })).toMatchObject({
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
    });
    expect(await result('resources/read', { uri: 'memo://7', _meta: meta() })).toMatchObject({
      ttlMs: 1_000,
      cacheScope: 'public',
    });
    expect(await result('server/discover', { _meta: meta() })).toMatchObject({
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      capabilities: { tools: { listChanged: true } },
      ttlMs: 0,
      cacheScope: 'private',
    });
  });

  it('streams subscribed changes tagged with the subscription id, honouring the filter, until cancelled', async () => {
    await client.send({
      jsonrpc: '2.0',
      id: 'sub-1',
      method: 'subscriptions/listen',
      params: {
        _meta: meta(),
        notifications: { toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['memo://1'] },
      },
    });
    const ack = await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params).toEqual({
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
      notifications: { toolsListChanged: true, resourceSubscriptions: ['memo://1'] },
    });
    server.setPromptEnabled('ask_prompt', false);
    server.setPromptEnabled('ask_prompt', true);
    server.setToolEnabled('chatty', false);
    server.setToolEnabled('chatty', true);
    await server.notifyResourceUpdated('memo://1');
    await server.notifyResourceUpdated('memo://2'); // not watched: nothing is sent
    await client.waitFor((m) => m.method === 'notifications/resources/updated');
    const tagged = client.received.filter(
      (m) => typeof m.method === 'string' && m.method !== 'notifications/subscriptions/acknowledged',
    );
    expect(tagged.map((m) => m.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
      'notifications/resources/updated',
    ]);
    expect(
      tagged.every(
        (m) =>
          (m.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/subscriptionId'] === 'sub-1',
      ),
    ).toBe(true);
    await client.notify('notifications/cancelled', { requestId: 'sub-1' });
    await client.request('tools/list', { _meta: meta() });
    const before = client.received.length;
    await server.notifyResourceUpdated('memo://1');
    await client.request('tools/list', { _meta: meta() });
    expect(client.received.slice(before).filter((m) => m.method === 'notifications/resources/updated')).toEqual([]);
    expect(client.received.filter((m) => m.id === 'sub-1')).toEqual([]);
  });

  it('answers removed methods with -32601 and keeps legacy sessions working beside modern requests', async () => {
    expect((await client.request('ping', { _meta: meta() })).error).toMatchObject({ code: -32601 });
    expect(
      (
        await client.request('initialize', {
          _meta: meta(),
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        })
      ).error,
    ).toMatchObject({ code: -32601 });
    await client.initialize();
    expect((await client.request('ping')).result).toEqual({});
    expect((await client.request('tools/list')).result).not.toHaveProperty('resultType');
    expect(await result('tools/list', { _meta: meta() })).toHaveProperty('resultType', 'complete');
  });
});

describe('serving one era', () => {
  it('a modern-only server refuses initialize naming the revisions it serves', async () => {
    const { moduleRef, server } = await serve({ eras: ['modern'] });
    const client = RawClient.connect(server);
    const refused = await client.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    expect(refused.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } });
    await client.close();
    await moduleRef.close();
  });

  it('a legacy-only server refuses modern requests with -32022', async () => {
    const { moduleRef, server } = await serve({ eras: ['legacy'] });
    const client = RawClient.connect(server);
    const refused = await client.request('tools/list', { _meta: meta() });
    expect(refused.error).toMatchObject({
      code: -32022,
      data: { supported: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] },
    });
    await client.close();
    await moduleRef.close();
  });
});

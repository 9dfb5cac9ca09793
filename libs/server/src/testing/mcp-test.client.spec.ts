import { Injectable, Module } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { McpError } from '@conduit-mcp/core';
import { McpArgs, McpCtx, McpModule, McpRequestContext, McpServer, McpTool } from '../index';
import { McpTestClient } from './index';

@Injectable()
class Tools {
  @McpTool({ name: 'echo', input: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } })
  echo(@McpArgs() { n }: { n: number }) {
    return { n };
  }

  @McpTool({ name: 'roots' })
  async roots(@McpCtx() ctx: McpRequestContext) {
    try {
      return await ctx.input.roots('roots');
    } catch (error) {
      const { code, message } = error as McpError;
      return `refused ${code}: ${message}`;
    }
  }

  @McpTool({ name: 'whoami' })
  whoami(@McpCtx() ctx: McpRequestContext) {
    return { auth: ctx.auth ?? null };
  }

  @McpTool({ name: 'stall' })
  stall(@McpCtx() ctx: McpRequestContext) {
    return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'unit', version: '1.0.0', http: false, shutdownGraceMs: 0 })],
  providers: [Tools],
})
class UnitModule {}

describe('McpTestClient', () => {
  let moduleRef: TestingModule;
  let server: McpServer;
  const clients: McpTestClient[] = [];
  const connect = async (options?: Parameters<typeof McpTestClient.connect>[1]) => {
    const client = await McpTestClient.connect(server, options);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [UnitModule] }).compile();
    await moduleRef.init();
    server = moduleRef.get(McpServer);
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  afterAll(() => moduleRef.close());

  it('initializes at the revision asked for, declaring its capabilities', async () => {
    const client = await connect({ protocolVersion: '2025-06-18', clientInfo: { name: 'spec', version: '9' } });
    expect(client.initializeResult).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'unit' } });
    const roots = await connect({ capabilities: { roots: {} }, onRequest: () => ({ roots: [] }) });
    expect((await roots.callTool('roots')).structuredContent).toEqual({ roots: [] });
  });

  it('matches each answer to its call when many are in flight (ids unique per client)', async () => {
    const client = await connect();
    const numbers = Array.from({ length: 20 }, (_, n) => n);
    const results = await Promise.all(numbers.map((n) => client.callTool('echo', { n })));
    expect(results.map((result) => result.structuredContent)).toEqual(numbers.map((n) => ({ n })));
  });

  it('answers the server’s requests with onRequest: a result, an McpError, any other throw as -32603', async () => {
    const answers: Array<() => unknown> = [
      () => ({ roots: [{ uri: 'file:///work' }] }),
      () => {
        throw new McpError(-32000, 'no roots today');
      },
      () => Promise.reject(new Error('handler broke')),
      () => undefined,
    ];
    const seen: Array<[string, Record<string, unknown>]> = [];
    const client = await connect({
      capabilities: { roots: {} },
      onRequest: (method, params) => {
        seen.push([method, params]);
        return answers[seen.length - 1]();
      },
    });
    const texts = [];
    for (let i = 0; i < answers.length; i++) texts.push((await client.callTool('roots')).content[0]);
    expect(texts).toEqual([
      { type: 'text', text: '{"roots":[{"uri":"file:///work"}]}' },
      { type: 'text', text: 'refused -32000: no roots today' },
      { type: 'text', text: 'refused -32603: handler broke' },
      { type: 'text', text: 'refused -32601: Method not found' },
    ]);
    expect(seen.map(([method]) => method)).toEqual(['roots/list', 'roots/list', 'roots/list', 'roots/list']);
  });

  it('collects the server’s notifications and waits for one', async () => {
    const client = await connect();
    const waiting = client.waitForNotification('notifications/tools/list_changed');
    server.setToolEnabled('echo', false);
    try {
      expect(await waiting).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      expect(client.notifications.map((notification) => notification.method)).toContain(
        'notifications/tools/list_changed',
      );
    } finally {
      server.setToolEnabled('echo', true);
    }
  });

  it('stops waiting for a notification after the timeout, naming it', async () => {
    const client = await connect({ timeoutMs: 50 });
    await expect(client.waitForNotification('notifications/prompts/list_changed')).rejects.toThrow(
      'McpTestClient: no notifications/prompts/list_changed notification within 50 ms',
    );
  });

  it('rejects a JSON-RPC error answer with McpError (code, message, data)', async () => {
    const client = await connect();
    const error = await client.request('no/such/method').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32601, message: 'Method not found', data: { method: 'no/such/method' } });
  });

  it('on close, rejects the calls still waiting, and refuses new calls', async () => {
    const client = await connect();
    const stalled = client.callTool('stall').catch((error: Error) => error);
    const watching = client.waitForNotification('notifications/resources/list_changed').catch((error: Error) => error);
    await client.close();
    expect(await stalled).toEqual(new Error('McpTestClient: tools/call got no answer, the client was closed'));
    expect(await watching).toEqual(
      new Error('McpTestClient: no notifications/resources/list_changed notification, the client was closed'),
    );
    await expect(client.listTools()).rejects.toThrow('McpTestClient: cannot send tools/list, the client is closed');
  });

  it('hands its auth to handlers as ctx.auth; without one, ctx.auth is undefined', async () => {
    const auth = { subject: 'alice', clientId: 'notes-app', scopes: ['notes:read'], claims: { sub: 'alice' } };
    const alice = await connect({ auth });
    expect((await alice.callTool('whoami')).structuredContent).toEqual({ auth });
    const service = await connect({ auth: { clientId: 'svc', scopes: [], claims: {} } });
    expect((await service.callTool('whoami')).structuredContent).toEqual({
      auth: { clientId: 'svc', scopes: [], claims: {} },
    });
    const anonymous = await connect();
    expect((await anonymous.callTool('whoami')).structuredContent).toEqual({ auth: null });
  });

  it('McpServer.endSessionsOf ends the sessions of that principal only, and counts them', async () => {
    const alice = { subject: 'alice', scopes: [], claims: {} };
    const [first, second] = [await connect({ auth: alice }), await connect({ auth: alice })];
    const service = await connect({ auth: { clientId: 'svc', scopes: [], claims: {} } });
    const bob = await connect({ auth: { subject: 'bob', scopes: [], claims: {} } });
    const anonymous = await connect();
    const stalled = first.callTool('stall').catch((error: Error) => error);

    expect(await server.endSessionsOf('alice')).toBe(2);
    expect(await stalled).toEqual(new Error('McpTestClient: tools/call got no answer, the session was closed'));
    await expect(second.listTools()).rejects.toThrow('cannot send tools/list, the client is closed');
    for (const client of [service, bob, anonymous])
      await expect(client.callTool('echo', { n: 1 })).resolves.toBeTruthy();
    // A client-credentials caller is named by its client; nobody's principal is undefined, so anonymous sessions stay.
    expect(await server.endSessionsOf('client:svc')).toBe(1);
    await expect(service.listTools()).rejects.toThrow('the client is closed');
    await expect(server.endSessionsOf(undefined as unknown as string)).rejects.toThrow(TypeError);
    expect((await anonymous.callTool('echo', { n: 2 })).structuredContent).toEqual({ n: 2 });
  });

  it('rejects the calls still waiting when the server ends the session', async () => {
    const own = await Test.createTestingModule({ imports: [UnitModule] }).compile();
    await own.init();
    const client = await McpTestClient.connect(own.get(McpServer));
    try {
      const stalled = client.callTool('stall').catch((error: Error) => error);
      await own.close();
      expect(await stalled).toEqual(new Error('McpTestClient: tools/call got no answer, the session was closed'));
    } finally {
      await client.close();
    }
  });
});

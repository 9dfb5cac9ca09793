// @McpScopes over HTTP with `auth`, in both eras, on the server mount, Express and Fastify: a caller sees only the
// entries it holds the scopes of, and using one it lacks them for is refused with 403 insufficient_scope naming every
// scope the operation needs — before any task exists. Also: implied scopes, the metadata's default scopes_supported,
// McpScopesGuard as a Nest guard, HTTP without auth (fails closed) and in memory (the process boundary is the trust).
import { INestApplication, Injectable, Module, UseGuards } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TASKS_EXTENSION_ID } from '@conduit-mcp/core';
import {
  InMemoryTaskStore,
  McpAuthInfo,
  McpCompletion,
  McpCtx,
  McpModule,
  McpPrompt,
  McpRequestContext,
  McpResource,
  McpScopes,
  McpScopesGuard,
  McpServer,
  McpTool,
  TaskRecord,
} from '@conduit-mcp/server';
import { McpTestClient } from '@conduit-mcp/server/testing';
import { RpcAnswer, legacySessionOf, postRpc } from './support/bearer-rpc';
import { createHttpApp, freePort, HTTP_MOUNTS } from './support/http-adapters';

const TOKENS: Record<string, McpAuthInfo> = {
  reader: { subject: 'rita', scopes: ['notes:read', 'openid'], claims: {} },
  writer: { subject: 'will', scopes: ['notes:read', 'notes:write'], claims: {} },
  admin: { subject: 'ada', scopes: ['admin'], claims: {} },
  nobody: { subject: 'nora', scopes: [], claims: {} },
};

@Injectable()
@McpScopes('notes:read')
class NoteTools {
  @McpTool({ name: 'list_notes' })
  list() {
    return 'no notes';
  }

  @McpTool({ name: 'add_note', task: 'optional', input: { type: 'object', properties: {} } })
  @McpScopes('notes:write')
  add(@McpCtx() ctx: McpRequestContext) {
    return `added by ${ctx.auth?.subject ?? 'anyone'}`;
  }

  @McpResource({ uri: 'notes://all', name: 'all_notes', mimeType: 'text/plain' })
  all() {
    return 'all the notes';
  }

  @McpResource({ uri: 'notes://{id}', name: 'note' })
  note() {
    return 'one note';
  }

  @McpCompletion({ resource: 'notes://{id}', argument: 'id' })
  ids() {
    return ['1', '2'];
  }

  @McpPrompt({ name: 'summarize_notes' })
  summarize() {
    return 'Summarize the notes.';
  }
}

@Injectable()
class OpenTools {
  @McpTool({ name: 'ping' })
  ping() {
    return 'pong';
  }

  @McpPrompt({ name: 'greet', arguments: [{ name: 'who' }] })
  greet() {
    return 'Hello.';
  }

  // A completion handler is not a listed entry: its scopes are enforced by the guard, used as a Nest guard.
  @McpCompletion({ prompt: 'greet', argument: 'who' })
  @McpScopes('admin')
  @UseGuards(McpScopesGuard)
  who() {
    return ['ada'];
  }
}

/** A task store counting the tasks created, to prove a refused call creates none. */
class CountingTaskStore extends InMemoryTaskStore {
  creates = 0;
  override create(task: TaskRecord): Promise<boolean> {
    this.creates++;
    return super.create(task);
  }
}

const MODERN = '2026-07-28';

describe.each(HTTP_MOUNTS)('@McpScopes over HTTP (%s adapter, %s mount)', (adapter, mount) => {
  let app: INestApplication;
  let url: string;
  let resource: string;
  const store = new CountingTaskStore();

  beforeAll(async () => {
    const port = await freePort();
    url = resource = `http://127.0.0.1:${port}/mcp`;
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'notes',
          version: '1.0.0',
          http: { mount },
          taskStore: store,
          auth: {
            resource,
            authorizationServers: ['https://idp.example.com'],
            token: { type: 'custom', verify: (token) => TOKENS[token] },
            impliedScopes: { admin: ['notes:read', 'notes:write'] },
          },
        }),
      ],
      providers: [NoteTools, OpenTools],
    })
    class ScopedModule {}
    app = await createHttpApp(ScopedModule, adapter, { logger: ['error'], abortOnError: false });
    await app.listen(port, '127.0.0.1');
  });
  afterAll(() => app?.close());

  const post = (token: string, body: object, headers: Record<string, string> = {}) =>
    postRpc(url, token, body, headers);
  const legacySession = (token: string) => legacySessionOf(url, token);

  /** A modern (2026-07-28) caller: every request stands alone. */
  function modern(token: string) {
    let id = 1;
    return (method: string, params: Record<string, unknown> = {}) =>
      post(
        token,
        {
          jsonrpc: '2.0',
          id: id++,
          method,
          params: {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': MODERN,
              'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION_ID]: {} } },
            },
          },
        },
        {
          'mcp-protocol-version': MODERN,
          'mcp-method': method,
          ...((params.name ?? params.uri) ? { 'mcp-name': String(params.name ?? params.uri) } : {}),
        },
      );
  }

  const names = (answer: RpcAnswer, key = 'tools') =>
    ((answer.result?.[key] ?? []) as Array<{ name: string }>).map((entry) => entry.name).sort();

  function expectInsufficientScope(answer: RpcAnswer, scopes: string[]) {
    expect(answer.status).toBe(403);
    expect(answer.error).toMatchObject({ code: -32000, data: { requiredScopes: scopes } });
    expect(answer.challenge).toBe(
      `Bearer error="insufficient_scope", error_description="The access token lacks a scope this operation needs", ` +
        `scope="${scopes.join(' ')}", resource_metadata="http://127.0.0.1:${new URL(url).port}/.well-known/oauth-protected-resource/mcp"`,
    );
  }

  it('lists to each caller only what it holds the scopes of (legacy)', async () => {
    const lists = {} as Record<string, string[][]>;
    for (const token of ['reader', 'writer', 'admin', 'nobody']) {
      const rpc = await legacySession(token);
      lists[token] = [
        names(await rpc('tools/list')),
        names(await rpc('resources/list'), 'resources'),
        names(await rpc('resources/templates/list'), 'resourceTemplates'),
        names(await rpc('prompts/list'), 'prompts'),
      ];
    }
    const all = [['add_note', 'list_notes', 'ping'], ['all_notes'], ['note'], ['greet', 'summarize_notes']];
    expect(lists).toEqual({
      reader: [['list_notes', 'ping'], ['all_notes'], ['note'], ['greet', 'summarize_notes']],
      writer: all,
      // admin implies notes:read and notes:write.
      admin: all,
      nobody: [['ping'], [], [], ['greet']],
    });
  });

  it('refuses a call the caller lacks a scope for with 403 naming every scope it needs (legacy)', async () => {
    const reader = await legacySession('reader');
    expectInsufficientScope(await reader('tools/call', { name: 'add_note', arguments: {} }), [
      'notes:write',
      'notes:read',
    ]);
    expect((await reader('tools/call', { name: 'list_notes', arguments: {} })).result).toMatchObject({
      content: [{ type: 'text', text: 'no notes' }],
    });
    const admin = await legacySession('admin');
    expect((await admin('tools/call', { name: 'add_note', arguments: {} })).result).toMatchObject({
      content: [{ type: 'text', text: 'added by ada' }],
    });
  });

  it('refuses reads, subscriptions, prompts and completions of scoped entries (legacy)', async () => {
    const nobody = await legacySession('nobody');
    expectInsufficientScope(await nobody('resources/read', { uri: 'notes://all' }), ['notes:read']);
    expectInsufficientScope(await nobody('resources/read', { uri: 'notes://7' }), ['notes:read']);
    expectInsufficientScope(await nobody('resources/subscribe', { uri: 'notes://all' }), ['notes:read']);
    expectInsufficientScope(await nobody('prompts/get', { name: 'summarize_notes' }), ['notes:read']);
    expectInsufficientScope(
      await nobody('completion/complete', {
        ref: { type: 'ref/resource', uri: 'notes://{id}' },
        argument: { name: 'id', value: '' },
      }),
      ['notes:read'],
    );
    // McpScopesGuard as a Nest guard, on a completion handler's own @McpScopes.
    const greet = { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: '' } };
    expectInsufficientScope(await nobody('completion/complete', greet), ['admin']);
    const admin = await legacySession('admin');
    expect((await admin('completion/complete', greet)).result).toMatchObject({ completion: { values: ['ada'] } });
    const reader = await legacySession('reader');
    expect((await reader('resources/read', { uri: 'notes://all' })).result).toMatchObject({
      contents: [{ uri: 'notes://all', text: 'all the notes' }],
    });
  });

  it('creates no task for a task call refused for its scopes (legacy and modern)', async () => {
    const before = store.creates;
    const reader = await legacySession('reader');
    const legacy = await reader('tools/call', { name: 'add_note', arguments: {}, task: { ttl: 60_000 } });
    expectInsufficientScope(legacy, ['notes:write', 'notes:read']);
    expect((await reader('tasks/list')).result).toMatchObject({ tasks: [] });
    expectInsufficientScope(await modern('reader')('tools/call', { name: 'add_note', arguments: {} }), [
      'notes:write',
      'notes:read',
    ]);
    expect(store.creates).toBe(before);
    // The same call by a caller with the scope does become a task.
    const writer = await legacySession('writer');
    const created = await writer('tools/call', { name: 'add_note', arguments: {}, task: { ttl: 60_000 } });
    expect(created.result).toMatchObject({ task: { status: 'working' } });
    expect(store.creates).toBe(before + 1);
  });

  it('lists per caller in the modern era, private to the caller, and refuses with 403', async () => {
    const reader = modern('reader');
    const list = await reader('tools/list');
    expect(names(list)).toEqual(['list_notes', 'ping']);
    expect(list.result).toMatchObject({ cacheScope: 'private' });
    expect(names(await modern('writer')('tools/list'))).toEqual(['add_note', 'list_notes', 'ping']);
    expectInsufficientScope(await modern('nobody')('resources/read', { uri: 'notes://all' }), ['notes:read']);
    const read = await reader('resources/read', { uri: 'notes://all' });
    expect(read.result).toMatchObject({ cacheScope: 'private' });
    expectInsufficientScope(
      await modern('nobody')('subscriptions/listen', { notifications: { resourceSubscriptions: ['notes://all'] } }),
      ['notes:read'],
    );
  });

  it('publishes the scopes of every entry as scopes_supported by default', async () => {
    const metadata = await fetch(`http://127.0.0.1:${new URL(url).port}/.well-known/oauth-protected-resource/mcp`);
    // A guarded completion handler's own scope (admin) is not an entry's: a client learns it from the 403.
    expect(((await metadata.json()) as { scopes_supported: string[] }).scopes_supported.sort()).toEqual([
      'notes:read',
      'notes:write',
    ]);
  });
});

describe('@McpScopes without an authorization context', () => {
  it('hides and refuses scoped entries over HTTP without auth (fails closed)', async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'open', version: '1', http: { sessionMode: 'stateless' } })],
      providers: [NoteTools, OpenTools],
    })
    class OpenModule {}
    const app = await createHttpApp(OpenModule, 'express');
    await app.listen(0, '127.0.0.1');
    try {
      const { port } = app.getHttpServer().address() as { port: number };
      const call = async (method: string, params: object) => {
        const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        return { status: response.status, body: (await response.json()) as RpcAnswer };
      };
      const list = await call('tools/list', {});
      expect((list.body.result!.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(['ping']);
      const refused = await call('tools/call', { name: 'list_notes', arguments: {} });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: -32000, data: { requiredScopes: ['notes:read'] } });
    } finally {
      await app.close();
    }
  });

  it('serves everything in memory without auth, and checks the scopes of a test client given auth', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'mem', version: '1', http: false })],
      providers: [NoteTools, OpenTools],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      const server = app.get(McpServer);
      const trusted = await McpTestClient.connect(server);
      const { tools } = await trusted.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'list_notes', 'ping']);
      expect(await trusted.callTool('add_note', {})).toMatchObject({ content: [{ text: 'added by anyone' }] });
      await trusted.close();
      const reader = await McpTestClient.connect(server, { auth: TOKENS.reader });
      expect((await reader.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['list_notes', 'ping']);
      await expect(reader.callTool('add_note', {})).rejects.toMatchObject({
        code: -32000,
        data: { requiredScopes: ['notes:write', 'notes:read'] },
      });
      await reader.close();
    } finally {
      await app.close();
    }
  });
});

describe('auth through McpModule.forRootAsync', () => {
  it('takes auth from the factory: metadata with the declared scopes, 401 without a token, 403 without a scope', async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    @Module({
      imports: [
        McpModule.forRootAsync({
          useFactory: async () => ({
            name: 'async-notes',
            version: '1',
            auth: {
              resource,
              authorizationServers: ['https://idp.example.com'],
              token: { type: 'custom' as const, verify: (token: string) => TOKENS[token] },
            },
          }),
        }),
      ],
      providers: [NoteTools, OpenTools],
    })
    class AsyncModule {}
    const app = await createHttpApp(AsyncModule, 'express');
    await app.listen(port, '127.0.0.1');
    try {
      const metadata = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`);
      expect(await metadata.json()).toMatchObject({ resource, scopes_supported: ['notes:read', 'notes:write'] });
      const anonymous = await postRpc(resource, undefined, { jsonrpc: '2.0', id: 1, method: 'ping' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.challenge).toContain('resource_metadata=');
      const reader = await legacySessionOf(resource, 'reader');
      expect((await reader('tools/call', { name: 'add_note', arguments: {} })).status).toBe(403);
    } finally {
      await app.close();
    }
  });
});

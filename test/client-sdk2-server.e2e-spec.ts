import { Injectable } from '@nestjs/common';
import { McpClientError, McpInputContext, OnElicitation, OnSampling } from '@conduit-mcp/client';
import { ClientApp, eventually, startClientApp } from './support/client-app';
import { ODD_STATE, Sdk2Server, startSdk2Server } from './support/client-sdk2.server';
import { errorOf, textOf } from './support/results';

/**
 * The client library against the official 2.x server (`@modelcontextprotocol/server` 2.4.0, `createMcpHandler`
 * behind `toNodeHandler`) in the 2026-07-28 era: tools, a prompt and a resource that ask for input with
 * `input_required` results (MRTR), fulfilled by the decorated handlers in the calling flow and retried.
 */

const SERVER_ID = 'sdk2';

describe.each<['modern' | 'auto']>([['modern'], ['auto']])('2.x createMcpHandler server, client era %s', (era) => {
  let server: Sdk2Server;
  let app: ClientApp;

  beforeAll(async () => {
    server = await startSdk2Server();
    // A roomy input budget: the defaults are checked at their boundary below.
    app = await startClientApp(
      { id: SERVER_ID, transport: { type: 'http', url: server.url }, era },
      { assigns: { tenant: 'default' }, inputRateLimit: { rate: 100, burst: 100 } },
    );
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await server?.close();
    }
  });

  beforeEach(() => {
    app.handlers.reset();
    server.echoedStates.length = 0;
  });

  it('speaks 2026-07-28 (pinned, or chosen by the server/discover probe)', async () => {
    expect(app.client).toMatchObject({ state: 'connected', era: 'modern', protocolVersion: '2026-07-28' });
    expect(app.client.serverCapabilities).toMatchObject({ tools: {}, prompts: {}, resources: {} });
    const tools = await app.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'ask_model',
      'client_roots',
      'confirm_delete',
      'endless',
      'everything_at_once',
      'interview',
      'open_consent',
    ]);
  });

  it('form elicitation: @OnElicitation answers, the call is retried with inputResponses and completes', async () => {
    app.handlers.elicitationAnswer = { action: 'accept', content: { confirm: true, reason: 'cleanup' } };
    const result = await app.client.callTool('confirm_delete', { path: '/tmp/x' }, { assigns: { user: 'ada' } });
    expect(textOf(result)).toBe('deleted /tmp/x: cleanup');
    const [asked] = app.handlers.elicitations;
    expect(asked.params).toMatchObject({ mode: 'form', message: 'Delete /tmp/x?' });
    expect(asked.ctx).toMatchObject({
      client: 'e2e-client',
      serverId: SERVER_ID,
      era: 'modern',
      assigns: { user: 'ada' },
      mode: 'form',
      fields: { confirm: { sensitiveSuspected: false }, reason: { sensitiveSuspected: false } },
      origin: new URL(server.url).origin,
    });
    expect(asked.ctx.relatedRequestId).toBeUndefined();
  });

  it('form elicitation declined: the decline is a result the server sees', async () => {
    app.handlers.elicitationAnswer = { action: 'decline' };
    expect(textOf(await app.client.callTool('confirm_delete', { path: '/tmp/y' }))).toBe('kept /tmp/y (decline)');
  });

  it('sampling: maxTokens clamped to 4096 and includeContext coerced to none before @OnSampling', async () => {
    const result = await app.client.callTool('ask_model', { question: 'Why is the sky blue?' });
    expect(textOf(result)).toBe('model e2e-model said: sampled: Why is the sky blue?');
    const [asked] = app.handlers.samplings;
    expect(asked.params).toMatchObject({ maxTokens: 4096, includeContext: 'none' });
    expect(asked.ctx).toMatchObject({ serverId: SERVER_ID, era: 'modern', assigns: { tenant: 'default' } });
  });

  it('roots: only local file roots reach the server, normalized', async () => {
    app.handlers.roots = [
      { uri: 'file:///work/project', name: 'project' },
      { uri: 'https://example.com/repo', name: 'remote' },
      { uri: 'file://localhost/srv/./data/../share', name: 'share' },
    ];
    expect(textOf(await app.client.callTool('client_roots', {}))).toBe(
      'project=file:///work/project\nshare=file:///srv/share',
    );
    expect(app.handlers.rootsAsked).toEqual([expect.objectContaining({ serverId: SERVER_ID, era: 'modern' })]);
  });

  it('URL elicitation: the context carries the URL facts; an accept carries no content', async () => {
    app.handlers.elicitationAnswer = { action: 'accept' };
    const url = 'https://consent.example.org/flow?id=7';
    expect(textOf(await app.client.callTool('open_consent', { url }))).toBe('consent: accept');
    expect(app.handlers.elicitations[0].ctx).toMatchObject({
      mode: 'url',
      url,
      host: 'consent.example.org',
      idn: false,
      originMismatch: true,
    });
  });

  it('URL elicitation: an http URL is refused -32602 before the handler, failing the call with kind input_handler', async () => {
    const error = await errorOf<McpClientError>(
      app.client.callTool('open_consent', { url: 'http://consent.example.org/flow' }),
    );
    expect(error).toBeInstanceOf(McpClientError);
    expect(error).toMatchObject({ kind: 'input_handler', code: -32602 });
    expect(app.handlers.elicitations).toEqual([]);
  });

  it('three rounds: requestState is echoed byte-exact each round', async () => {
    app.handlers.elicitationAnswer = { action: 'accept', content: { name: 'Ada' } };
    const result = await app.client.callTool('interview', {});
    expect(textOf(result)).toBe('Ada got: sampled: A poem for Ada');
    expect(server.echoedStates).toEqual([ODD_STATE, 'round-2:Ada']);
    expect(app.handlers.elicitations).toHaveLength(1);
    expect(app.handlers.samplings).toHaveLength(1);
  });

  it('one round asking for a form, a sampling and the roots at once', async () => {
    app.handlers.elicitationAnswer = { action: 'accept', content: { pick: 'b' } };
    app.handlers.roots = [{ uri: 'file:///work/project', name: 'project' }];
    expect(textOf(await app.client.callTool('everything_at_once', {}))).toBe('elicit/sampling/1');
    expect([app.handlers.elicitations.length, app.handlers.samplings.length, app.handlers.rootsAsked.length]).toEqual([
      1, 1, 1,
    ]);
  });

  it('prompts/get and resources/read ask for input too', async () => {
    app.handlers.elicitationAnswer = (params) =>
      String(params.message).startsWith('Greet')
        ? { action: 'accept', content: { who: 'World' } }
        : { action: 'accept', content: {} };
    const prompt = await app.client.getPrompt('greeting');
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello to World' } }]);
    const note = await app.client.readResource('note://secret');
    expect(note.contents).toEqual([{ uri: 'note://secret', mimeType: 'text/plain', text: 'the secret note' }]);
    expect(app.handlers.elicitations.map((question) => question.params.message)).toEqual([
      'Greet whom?',
      'Unlock the note?',
    ]);
  });

  it('a handler that throws, or answers badly, fails the call with kind input_handler', async () => {
    app.handlers.elicitationAnswer = () => {
      throw new Error('the person closed the dialog');
    };
    const thrown = await errorOf<McpClientError>(app.client.callTool('confirm_delete', { path: '/tmp/z' }));
    expect(thrown).toMatchObject({ kind: 'input_handler' });
    app.handlers.elicitationAnswer = { action: 'maybe' };
    const bad = await errorOf<McpClientError>(app.client.callTool('confirm_delete', { path: '/tmp/z' }));
    expect(bad).toMatchObject({ kind: 'input_handler', code: -32603 });
    app.handlers.elicitationAnswer = { action: 'accept', content: { confirm: 'yes' } };
    const misfit = await errorOf<McpClientError>(app.client.callTool('confirm_delete', { path: '/tmp/z' }));
    expect(misfit).toMatchObject({ kind: 'input_handler', code: -32603 });
  });

  it('subscriptions/listen: list changes and resource updates reach @OnNotification', async () => {
    const listen = await app.client.listen({ toolsListChanged: true, resourceSubscriptions: ['note://plain'] });
    try {
      expect(listen.acknowledged).toMatchObject({ toolsListChanged: true, resourceSubscriptions: ['note://plain'] });
      server.handler.notify.toolsChanged();
      server.handler.notify.resourceUpdated('note://plain');
      server.handler.notify.resourceUpdated('note://other');
      const updated = await eventually(
        'notifications/resources/updated',
        () => app.handlers.notificationsOf('notifications/resources/updated')[0],
      );
      expect(updated.params).toMatchObject({ uri: 'note://plain' });
      expect(updated.ctx).toEqual({
        client: 'e2e-client',
        serverId: SERVER_ID,
        era: 'modern',
        method: 'notifications/resources/updated',
      });
      expect(app.handlers.notificationsOf('notifications/tools/list_changed')).toHaveLength(1);
    } finally {
      listen.close();
    }
    expect(await listen.closed).toBe('closed');
    expect(app.handlers.notificationsOf('notifications/resources/updated').map((n) => n.params.uri)).toEqual([
      'note://plain',
    ]);
  });

  it('ping (a discovery in this era) and the health indicator', async () => {
    expect(await app.client.ping()).toMatchObject({ supportedVersions: expect.arrayContaining(['2026-07-28']) });
    expect(await app.health.isHealthy('mcp')).toEqual({
      mcp: {
        status: 'up',
        [SERVER_ID]: { up: true, state: 'connected', era: 'modern', protocolVersion: '2026-07-28' },
      },
    });
  });
});

/** Only sampling and elicitation: the client declares no roots capability. */
@Injectable()
class NoRootsHandlers {
  asked: string[] = [];

  @OnSampling()
  sample(_params: unknown, ctx: McpInputContext) {
    this.asked.push(`sampling:${ctx.era}`);
    return { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' };
  }

  @OnElicitation()
  elicit(_params: unknown, ctx: McpInputContext) {
    this.asked.push(`elicitation:${ctx.era}`);
    return { action: 'decline' };
  }
}

describe('2.x createMcpHandler server, a client without a roots handler', () => {
  let server: Sdk2Server;
  let app: ClientApp<NoRootsHandlers>;

  beforeAll(async () => {
    server = await startSdk2Server();
    app = await startClientApp(
      { id: SERVER_ID, transport: { type: 'http', url: server.url }, era: 'modern' },
      {},
      NoRootsHandlers,
    );
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await server?.close();
    }
  });

  it('declares exactly what it handles: the server refuses to ask for roots or URL elicitation (-32021)', async () => {
    const roots = await errorOf<McpClientError>(app.client.callTool('everything_at_once', {}));
    expect(roots).toMatchObject({ kind: 'rpc', code: -32021, data: { requiredCapabilities: { roots: {} } } });
    expect(roots.message).toMatch(/must declare roots \(a handler with @OnRoots\(\)\)/);
    const url = await errorOf<McpClientError>(app.client.callTool('open_consent', { url: 'https://example.com/' }));
    expect(url).toMatchObject({
      kind: 'rpc',
      code: -32021,
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    });
    expect(url.message).toContain("@OnElicitation({ modes: ['url'] })");
    expect(app.handlers.asked).toEqual([]);
  });

  it('still answers what it declared (form elicitation, sampling)', async () => {
    expect(textOf(await app.client.callTool('confirm_delete', { path: '/tmp/q' }))).toBe('kept /tmp/q (decline)');
    expect(textOf(await app.client.callTool('ask_model', { question: 'q' }))).toBe('model m said: x');
    expect(app.handlers.asked).toEqual(['elicitation:modern', 'sampling:modern']);
  });
});

describe('2.x createMcpHandler server, client era legacy (the stateless 2025 fallback)', () => {
  let server: Sdk2Server;
  let app: ClientApp;

  beforeAll(async () => {
    server = await startSdk2Server();
    app = await startClientApp({ id: SERVER_ID, transport: { type: 'http', url: server.url }, era: 'legacy' });
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await server?.close();
    }
  });

  it('initializes without a session and serves plain requests', async () => {
    expect(app.client).toMatchObject({ era: 'legacy', protocolVersion: '2025-11-25' });
    expect((await app.client.listTools()).map((tool) => tool.name)).toContain('confirm_delete');
    expect((await app.client.readResource('note://plain')).contents).toEqual([
      { uri: 'note://plain', mimeType: 'text/plain', text: 'plain' },
    ]);
  });

  it('the server cannot ask questions there (its own limit): the tool reports it, no handler runs', async () => {
    const result = await app.client.callTool('confirm_delete', { path: '/x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/per-request legacy serving cannot receive server-to-client requests/);
    expect(app.handlers.elicitations).toEqual([]);
  });
});

describe('2.x createMcpHandler server, MRTR bounds', () => {
  let server: Sdk2Server;

  beforeAll(async () => {
    server = await startSdk2Server();
  });

  afterAll(() => server?.close());

  it('a server that never stops asking is given up on after maxInputRounds (10) rounds, kind protocol', async () => {
    const app = await startClientApp(
      { id: SERVER_ID, transport: { type: 'http', url: server.url }, era: 'modern' },
      { inputRateLimit: { rate: 1_000, burst: 1_000 } },
    );
    try {
      app.handlers.elicitationAnswer = { action: 'accept', content: {} };
      const error = await errorOf<McpClientError>(app.client.callTool('endless', {}));
      expect(error).toMatchObject({ kind: 'protocol' });
      expect(error.message).toMatch(/after 10 rounds/);
      expect(app.handlers.elicitations).toHaveLength(10);
    } finally {
      await app.close();
    }
  });

  it('the input budget (default 10/s, bursts of 20) refuses the question past the burst with -32000', async () => {
    const app = await startClientApp(
      { id: SERVER_ID, transport: { type: 'http', url: server.url }, era: 'modern' },
      { maxInputRounds: 100 },
    );
    try {
      app.handlers.elicitationAnswer = { action: 'accept', content: {} };
      const started = performance.now();
      const error = await errorOf<McpClientError>(app.client.callTool('endless', {}));
      const elapsed = performance.now() - started;
      expect(error).toMatchObject({ kind: 'input_handler', code: -32000 });
      expect(error.message).toMatch(/Too many requests for input/);
      // The burst of 20, plus what refilled at 10/s while the rounds ran.
      expect(app.handlers.elicitations.length).toBeGreaterThanOrEqual(20);
      expect(app.handlers.elicitations.length).toBeLessThanOrEqual(20 + Math.floor(elapsed / 100));
    } finally {
      await app.close();
    }
  });
});

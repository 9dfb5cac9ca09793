import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { INHERITED_ENV_VARS, McpClientError, McpServerConfig } from '@conduit-mcp/client';
import { ClientApp, eventually, startClientApp } from './support/client-app';
import { RecordedContext, RecordedLog, RecordedNotification } from './support/client-recording.handlers';
import { PeerProcess, alive, spawnHttpPeer } from './support/client-peer.process';
import { errorOf, textOf } from './support/results';

/**
 * The client library against the official reference server, `@modelcontextprotocol/server-everything` (SDK 1.x,
 * legacy era), over its three transports. Every tool it offers is called; its sampling, elicitation (form and URL)
 * and roots questions are answered by the decorated handlers of a Nest app, through the library's safety checks.
 */

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const SERVER_ID = 'everything';
/** Set in our environment before a stdio child is spawned: it must not reach the child. */
const SECRET_VAR = 'CONDUIT_E2E_SECRET_TOKEN';

type Kind = 'stdio' | 'streamableHttp' | 'sse';

/** The tools the server lists for a client that declares sampling, elicitation (form, url) and roots, but no tasks. */
const EXPECTED_TOOLS = [
  'echo',
  'get-annotated-message',
  'get-env',
  'get-resource-links',
  'get-resource-reference',
  'get-roots-list',
  'get-structured-content',
  'get-sum',
  'get-tiny-image',
  'gzip-file-as-resource',
  'simulate-research-query',
  'toggle-simulated-logging',
  'toggle-subscriber-updates',
  'trigger-elicitation-request',
  'trigger-long-running-operation',
  'trigger-sampling-request',
  'trigger-url-elicitation',
];

const texts = (result: Record<string, unknown>): string =>
  ((result.content ?? []) as Array<{ type: string; text?: string }>)
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');

describe.each<[Kind]>([['stdio'], ['streamableHttp'], ['sse']])('server-everything over %s', (kind) => {
  let peer: PeerProcess | undefined;
  let stdioPid: number | undefined;
  let app: ClientApp;
  /** The roots question the server asks right after the handshake, and the log entry that reports its answer. */
  let initialRoots: { asked: RecordedContext; log: RecordedLog };
  let initialNotifications: RecordedNotification[];
  /** Legacy requests tied to a call carry its id; on HTTP+SSE nothing ties a server request to a call. */
  const tiedToCalls = kind !== 'sse';

  beforeAll(async () => {
    let transport: McpServerConfig['transport'];
    if (kind === 'stdio') {
      process.env[SECRET_VAR] = 'must-not-leak';
      transport = { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] };
    } else {
      peer = await spawnHttpPeer(EVERYTHING, [kind]);
      const path = kind === 'sse' ? '/sse' : '/mcp';
      transport = { type: kind === 'sse' ? 'sse' : 'http', url: `http://127.0.0.1:${peer.port}${path}` };
    }
    app = await startClientApp(
      { id: SERVER_ID, transport, era: 'auto', connectOnStart: false },
      { assigns: { tenant: 'default' } },
    );
    // Roots are fetched once right after the handshake and cached per session: set them before connecting.
    app.handlers.roots = [
      { uri: 'file:///work/project', name: 'project' },
      { uri: 'https://evil.example/share', name: 'remote' },
      { uri: 'file://otherhost/etc', name: 'other host' },
      { uri: 'file:///work/a/../b', name: 'dots\u202E' },
    ];
    await app.client.connect();
    stdioPid = (app.client as unknown as { transport?: { pid?: number } }).transport?.pid;
    initialRoots = {
      asked: await eventually('the roots question after the handshake', () => app.handlers.rootsAsked[0]),
      log: await eventually('the roots log entry', () =>
        app.handlers.logs.find((log) => String(log.params.data).startsWith('Roots updated')),
      ),
    };
    initialNotifications = [...app.handlers.notifications];
  }, 30_000);

  afterAll(async () => {
    delete process.env[SECRET_VAR];
    let leaked: number | undefined;
    try {
      await app?.close();
    } finally {
      await peer?.stop();
      // Closing the client ends its stdio child; make sure, by its PID.
      if (stdioPid !== undefined && alive(stdioPid)) {
        process.kill(stdioPid, 'SIGKILL');
        leaked = stdioPid;
      }
    }
    if (leaked !== undefined) throw new Error(`closing the client left the stdio server ${leaked} running`);
  }, 15_000);

  beforeEach(() => app.handlers.reset());

  it('listens on 127.0.0.1 only (HTTP peers)', async () => {
    if (!peer) return;
    expect(peer.address).toBe('127.0.0.1');
    // Where the machine has another address, the port is closed there.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal);
    if (external) await expect(connectTo(external.address, peer.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('falls back from the server/discover probe to initialize, and exposes what the server declared', () => {
    const { client } = app;
    expect(client.state).toBe('connected');
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toMatchObject({ name: 'mcp-servers/everything' });
    expect(client.serverCapabilities).toMatchObject({
      tools: {},
      prompts: {},
      resources: { subscribe: true },
      logging: {},
    });
    expect(client.instructions).toEqual(expect.any(String));
  });

  it('declares sampling, elicitation (form, url) and roots, so the server offers exactly the matching tools', async () => {
    const tools = await app.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(EXPECTED_TOOLS);
    // The async (client-side task) triggers need a tasks capability, which the client does not declare.
    expect(tools.map((tool) => tool.name)).not.toContain('trigger-sampling-request-async');
  });

  it('asks for roots right after the handshake: only local file roots are sent, normalized', async () => {
    // The server asked once, 350 ms after initialized, tied to no call: the client's assigns.
    expect(initialRoots.asked).toMatchObject({
      client: 'e2e-client',
      serverId: SERVER_ID,
      era: 'legacy',
      assigns: { tenant: 'default' },
      callsInFlight: 0,
    });
    expect(initialRoots.asked.relatedRequestId).toBeUndefined();
    expect(initialRoots.log.params).toEqual({
      level: 'info',
      logger: 'everything-server',
      data: 'Roots updated: 2 root(s) received from client',
    });
    const result = await app.client.callTool('get-roots-list', {});
    expect(texts(result)).toContain('Current MCP Roots (2 total)');
    expect(texts(result)).toContain('URI: file:///work/project');
    expect(texts(result)).toContain('URI: file:///work/b');
    expect(texts(result)).not.toMatch(/evil\.example|otherhost|\u202E/);
  });

  it('the list_changed notifications of the tools registered after the handshake reach @OnNotification', () => {
    const changed = initialNotifications.filter(
      (notification) => notification.method === 'notifications/tools/list_changed',
    );
    // Over Streamable HTTP the server sends them while handling notifications/initialized, before a client opens
    // its GET stream (as the spec orders); it keeps them in its event store but replays only after a Last-Event-ID.
    if (kind === 'streamableHttp') return;
    expect(changed.length).toBeGreaterThan(0);
    for (const notification of changed)
      expect(notification.ctx).toEqual({
        client: 'e2e-client',
        serverId: SERVER_ID,
        era: 'legacy',
        method: 'notifications/tools/list_changed',
      });
  });

  it('echo, get-sum', async () => {
    expect(textOf(await app.client.callTool('echo', { message: 'hello there' }))).toBe('Echo: hello there');
    expect(textOf(await app.client.callTool('get-sum', { a: 2, b: 40 }))).toBe('The sum of 2 and 40 is 42.');
  });

  it('get-annotated-message and get-tiny-image: annotations and image content', async () => {
    const annotated = await app.client.callTool('get-annotated-message', { messageType: 'error', includeImage: true });
    expect(annotated.content).toEqual([
      { type: 'text', text: 'Error: Operation failed', annotations: { priority: 1, audience: ['user', 'assistant'] } },
      {
        type: 'image',
        data: expect.any(String),
        mimeType: 'image/png',
        annotations: { priority: 0.5, audience: ['user'] },
      },
    ]);
    const image = await app.client.callTool('get-tiny-image', {});
    const block = (image.content as Array<{ type: string; data?: string; mimeType?: string }>)[1];
    expect(block).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from(block.data!, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('get-env: the server sees a scrubbed environment', async () => {
    const env = JSON.parse(textOf(await app.client.callTool('get-env', {}))) as Record<string, string>;
    const allowed = kind === 'stdio' ? [...INHERITED_ENV_VARS] : ['PATH', 'HOME', 'PORT'];
    expect(Object.keys(env).filter((name) => !allowed.includes(name))).toEqual([]);
    expect(env[SECRET_VAR]).toBeUndefined();
  });

  it('get-structured-content: structured content beside its text', async () => {
    const result = await app.client.callTool('get-structured-content', { location: 'Chicago' });
    expect(result.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('get-resource-links and get-resource-reference: links the client can read, embedded resources', async () => {
    const links = await app.client.callTool('get-resource-links', { count: 4 });
    const blocks = (links.content as Array<{ type: string; uri?: string; mimeType?: string }>).filter(
      (block) => block.type === 'resource_link',
    );
    expect(blocks.map((block) => block.uri)).toEqual([
      'demo://resource/dynamic/blob/1',
      'demo://resource/dynamic/text/2',
      'demo://resource/dynamic/blob/3',
      'demo://resource/dynamic/text/4',
    ]);
    const text = await app.client.readResource(blocks[1].uri!);
    expect(text.contents).toEqual([
      expect.objectContaining({
        uri: 'demo://resource/dynamic/text/2',
        mimeType: 'text/plain',
        text: expect.stringMatching(/^Resource 2: /),
      }),
    ]);
    const blob = await app.client.readResource(blocks[0].uri!);
    const [content] = blob.contents as Array<{ blob: string }>;
    expect(Buffer.from(content.blob, 'base64').toString('utf8')).toMatch(/^Resource 1: This is a base64 blob/);

    const reference = await app.client.callTool('get-resource-reference', { resourceType: 'Blob', resourceId: 7 });
    expect((reference.content as unknown[])[1]).toEqual({
      type: 'resource',
      resource: { uri: 'demo://resource/dynamic/blob/7', mimeType: 'text/plain', blob: expect.any(String) },
    });
  });

  it('gzip-file-as-resource: a data URI compressed into a session resource, as a link and embedded', async () => {
    const data = `data:text/plain;base64,${Buffer.from('conduit e2e '.repeat(20)).toString('base64')}`;
    const linked = await app.client.callTool('gzip-file-as-resource', {
      name: `e2e-${kind}.txt.gz`,
      data,
      outputType: 'resourceLink',
    });
    const [link] = linked.content as Array<{ type: string; uri: string }>;
    expect(link).toMatchObject({
      type: 'resource_link',
      uri: `demo://resource/session/e2e-${kind}.txt.gz`,
      mimeType: 'application/gzip',
    });
    const read = await app.client.readResource(link.uri);
    const [contents] = read.contents as Array<{ blob: string }>;
    expect(gunzipSync(Buffer.from(contents.blob, 'base64')).toString('utf8')).toBe('conduit e2e '.repeat(20));

    const embedded = await app.client.callTool('gzip-file-as-resource', {
      name: `e2e-${kind}-2.txt.gz`,
      data,
      outputType: 'resource',
    });
    const [block] = embedded.content as Array<{ type: string; resource: { blob: string } }>;
    expect(block.type).toBe('resource');
    expect(gunzipSync(Buffer.from(block.resource.blob, 'base64')).toString('utf8')).toBe('conduit e2e '.repeat(20));
  });

  it('trigger-long-running-operation: progress reaches onProgress in order', async () => {
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await app.client.callTool(
      'trigger-long-running-operation',
      { duration: 0.4, steps: 4 },
      { onProgress: (p) => progress.push(p) },
    );
    expect(textOf(result)).toBe('Long running operation completed. Duration: 0.4 seconds, Steps: 4.');
    expect(progress).toEqual([1, 2, 3, 4].map((step) => ({ progress: step, total: 4 })));
  });

  it('trigger-long-running-operation: a deadline ends the call with kind timeout, a signal with kind cancelled', async () => {
    const timedOut = await errorOf<McpClientError>(
      app.client.callTool('trigger-long-running-operation', { duration: 2, steps: 2 }, { timeout: 200 }),
    );
    expect(timedOut).toBeInstanceOf(McpClientError);
    expect(timedOut.kind).toBe('timeout');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const cancelled = await errorOf<McpClientError>(
      app.client.callTool('trigger-long-running-operation', { duration: 2, steps: 2 }, { signal: controller.signal }),
    );
    expect(cancelled.kind).toBe('cancelled');
    // The connection is still usable.
    expect(textOf(await app.client.callTool('echo', { message: 'still here' }))).toBe('Echo: still here');
  });

  it('trigger-sampling-request: @OnSampling answers with maxTokens clamped and the call context', async () => {
    const result = await app.client.callTool(
      'trigger-sampling-request',
      { prompt: 'Say hi', maxTokens: 100_000 },
      { assigns: { user: 'ada' } },
    );
    const sampled = JSON.parse(textOf(result).replace(/^LLM sampling result: \n/, '')) as Record<string, unknown>;
    expect(sampled).toMatchObject({
      role: 'assistant',
      model: 'e2e-model',
      content: { type: 'text', text: 'sampled: Resource trigger-sampling-request context: Say hi' },
    });
    const [asked] = app.handlers.samplings;
    expect(asked.params).toMatchObject({
      maxTokens: 4096,
      systemPrompt: 'You are a helpful test server.',
      temperature: 0.7,
    });
    expect(asked.ctx).toMatchObject({ client: 'e2e-client', serverId: SERVER_ID, era: 'legacy', callsInFlight: 1 });
    if (tiedToCalls) {
      expect(asked.ctx.relatedRequestId).toEqual(expect.any(Number));
      expect(asked.ctx.assigns).toEqual({ user: 'ada' });
    } else {
      expect(asked.ctx.relatedRequestId).toBeUndefined();
    }
  });

  it('trigger-sampling-request: a malformed answer is refused -32603 before it reaches the server', async () => {
    app.handlers.samplingAnswer = { role: 'assistant', content: { type: 'text', text: 'no model named' } };
    const result = await app.client.callTool('trigger-sampling-request', { prompt: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('-32603');
    expect(textOf(result)).toContain('sampling result model must be a string');
  });

  it('trigger-elicitation-request: @OnElicitation sees the form, its fields, and the accepted answer reaches the server', async () => {
    app.handlers.elicitationAnswer = {
      action: 'accept',
      content: {
        name: 'Ada Lovelace',
        check: true,
        email: 'ada@example.com',
        integer: 42,
        untitledMultipleSelectEnum: ['Piano', 'Violin'],
        titledSingleSelectEnum: 'hero-3',
        titledMultipleSelectEnum: ['fish-2'],
        legacyTitledEnum: 'pet-2',
      },
    };
    const result = await app.client.callTool('trigger-elicitation-request', {}, { assigns: { user: 'ada' } });
    expect(texts(result)).toContain('- Name: Ada Lovelace');
    expect(texts(result)).toContain('- Email: ada@example.com');
    expect(texts(result)).toContain('- Favorite Integer: 42');
    const [asked] = app.handlers.elicitations;
    expect(asked.params).toMatchObject({ message: 'Please provide inputs for the following fields:' });
    expect(asked.ctx).toMatchObject({ serverId: SERVER_ID, era: 'legacy', mode: 'form' });
    if (tiedToCalls) expect(asked.ctx.assigns).toEqual({ user: 'ada' });
    expect(Object.keys(asked.ctx.fields ?? {}).sort()).toEqual(
      Object.keys((asked.params.requestedSchema as { properties: object }).properties).sort(),
    );
    expect(asked.ctx.fields?.name).toEqual({ sensitiveSuspected: false });
    // "do not give us your phone number, pin, or other sensitive info": the description names a PIN.
    expect(asked.ctx.fields?.integer).toEqual({ sensitiveSuspected: true });
  });

  it('trigger-elicitation-request: decline, and an answer that does not fit the form (refused -32603)', async () => {
    app.handlers.elicitationAnswer = { action: 'decline' };
    expect(texts(await app.client.callTool('trigger-elicitation-request', {}))).toContain('User declined');
    app.handlers.elicitationAnswer = { action: 'accept', content: { name: 'Ada', integer: 500 } };
    const misfit = await app.client.callTool('trigger-elicitation-request', {});
    expect(misfit.isError).toBe(true);
    expect(textOf(misfit)).toContain('-32603');
    expect(textOf(misfit)).toMatch(/does not fit the schema/);
  });

  it('trigger-url-elicitation: URL mode with the URL, host, idn and origin mismatch in the context', async () => {
    app.handlers.elicitationAnswer = { action: 'accept' };
    const url = 'https://xn--80ak6aa92e.com/consent?step=1';
    const result = await app.client.callTool('trigger-url-elicitation', { url, elicitationId: `e2e-${kind}` });
    expect(texts(result)).toContain('User completed the URL elicitation flow');
    const [asked] = app.handlers.elicitations;
    expect(asked.params).toMatchObject({ mode: 'url', url, elicitationId: `e2e-${kind}` });
    expect(asked.ctx).toMatchObject({
      mode: 'url',
      url,
      host: 'xn--80ak6aa92e.com',
      idn: true,
      originMismatch: true,
      serverId: SERVER_ID,
      era: 'legacy',
    });
  });

  it('trigger-url-elicitation: http, javascript and userinfo URLs are refused -32602 before the handler', async () => {
    app.handlers.elicitationAnswer = { action: 'accept' };
    for (const url of ['http://example.com/consent', 'javascript:alert(1)', 'https://user:secret@example.com/']) {
      const result = await app.client.callTool('trigger-url-elicitation', { url });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('-32602');
    }
    expect(app.handlers.elicitations).toEqual([]);
  });

  it('trigger-url-elicitation: a URL content on accept is refused -32603', async () => {
    app.handlers.elicitationAnswer = { action: 'accept', content: { done: true } };
    const result = await app.client.callTool('trigger-url-elicitation', { url: 'https://example.com/x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('-32603');
  });

  it('trigger-url-elicitation (error path): the -32042 URL-elicitation-required error reaches the caller as kind rpc', async () => {
    const error = await errorOf<McpClientError>(
      app.client.callTool('trigger-url-elicitation', {
        url: 'https://example.com/auth',
        errorPath: true,
        elicitationId: `err-${kind}`,
      }),
    );
    expect(error).toMatchObject({ kind: 'rpc', code: -32042 });
    expect(error.data).toMatchObject({
      elicitations: [expect.objectContaining({ mode: 'url', url: 'https://modelcontextprotocol.io' })],
    });
    // Retried with the same arguments, the server proceeds to the request path.
    app.handlers.elicitationAnswer = { action: 'cancel' };
    const retried = await app.client.callTool('trigger-url-elicitation', {
      url: 'https://example.com/auth',
      errorPath: true,
      elicitationId: `err-${kind}`,
    });
    expect(texts(retried)).toContain('User cancelled the URL elicitation');
  });

  it('nine questions at once: the ninth is refused -32000 busy (maxServerRequests 8), the eight are answered', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    app.handlers.elicitationAnswer = async () => {
      await released;
      return { action: 'decline' };
    };
    const calls = Array.from({ length: 9 }, () => app.client.callTool('trigger-elicitation-request', {}));
    await eventually('eight questions waiting', () => app.handlers.elicitations.length === 8, 5_000);
    const busy = await Promise.race(calls.map((call) => call.then((result) => (result.isError ? result : undefined))));
    expect(textOf(busy!)).toMatch(/-32000.*Client busy/);
    release();
    const results = await Promise.all(calls);
    expect(results.filter((result) => texts(result).includes('User declined'))).toHaveLength(8);
    expect(app.handlers.elicitations).toHaveLength(8);
  });

  it('simulate-research-query: a task-augmented call whose clarifying elicitation is answered while awaiting tasks/result', async () => {
    app.handlers.elicitationAnswer = { action: 'accept', content: { interpretation: 'snake' } };
    const created = await app.client.request('tools/call', {
      name: 'simulate-research-query',
      arguments: { topic: 'python', ambiguous: true },
      task: { ttl: 60_000 },
    });
    const { taskId } = created.task as { taskId: string; status: string };
    expect(taskId).toEqual(expect.any(String));
    const result = await app.client.request('tasks/result', { taskId }, { timeout: 20_000 });
    expect(textOf(result)).toContain('# Research Report: python (snake)');
    const [asked] = app.handlers.elicitations;
    expect(asked.ctx).toMatchObject({ serverId: SERVER_ID, era: 'legacy', mode: 'form' });
    const status = await app.client.request('tasks/get', { taskId });
    expect(status).toMatchObject({ taskId, status: 'completed' });
  }, 20_000);

  it('prompts: list, get with arguments, embedded resources, a missing argument', async () => {
    const prompts = await app.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual([
      'args-prompt',
      'completable-prompt',
      'resource-prompt',
      'simple-prompt',
    ]);
    expect(await app.client.getPrompt('simple-prompt')).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } }],
    });
    const args = await app.client.getPrompt('args-prompt', { city: 'Oslo', state: 'Viken' });
    expect(args.messages).toEqual([
      { role: 'user', content: { type: 'text', text: "What's weather in Oslo, Viken?" } },
    ]);
    const resource = await app.client.getPrompt('resource-prompt', { resourceType: 'Text', resourceId: '3' });
    expect((resource.messages as Array<{ content: unknown }>)[1].content).toMatchObject({
      type: 'resource',
      resource: { uri: 'demo://resource/dynamic/text/3' },
    });
    const missing = await errorOf<McpClientError>(app.client.getPrompt('args-prompt', {}));
    expect(missing).toMatchObject({ kind: 'rpc', code: -32602 });
  });

  it('completions: prompt arguments (with context) and resource template variables', async () => {
    const department = await app.client.complete(
      { type: 'ref/prompt', name: 'completable-prompt' },
      { name: 'department', value: 'S' },
    );
    expect((department.completion as { values: string[] }).values).toEqual(['Sales', 'Support']);
    const lead = await app.client.complete(
      { type: 'ref/prompt', name: 'completable-prompt' },
      { name: 'name', value: 'A' },
      { arguments: { department: 'Engineering' } },
    );
    expect((lead.completion as { values: string[] }).values).toEqual(['Alice']);
    const type = await app.client.complete(
      { type: 'ref/prompt', name: 'resource-prompt' },
      { name: 'resourceType', value: 'B' },
    );
    expect((type.completion as { values: string[] }).values).toEqual(['Blob']);
    const id = await app.client.complete(
      { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
      { name: 'resourceId', value: '12' },
    );
    expect((id.completion as { values: string[] }).values).toEqual(['12']);
  });

  it('resources: list, templates, read static and dynamic, an unknown one', async () => {
    const resources = await app.client.listResources();
    const instructions = resources.find(
      (resource) => resource.uri === 'demo://resource/static/document/instructions.md',
    );
    expect(instructions).toMatchObject({ mimeType: 'text/markdown' });
    const read = await app.client.readResource('demo://resource/static/document/instructions.md');
    expect((read.contents as Array<{ text: string }>)[0].text).toBe(app.client.instructions);
    const templates = await app.client.listResourceTemplates();
    expect(templates.map((template) => template.uriTemplate).sort()).toEqual([
      'demo://resource/dynamic/blob/{resourceId}',
      'demo://resource/dynamic/text/{resourceId}',
    ]);
    const unknown = await errorOf<McpClientError>(app.client.readResource('demo://resource/dynamic/text/not-a-number'));
    expect(unknown.kind).toBe('rpc');
  });

  it('logging: setLogLevel, and the simulated log entries reach @OnLog sanitized, with the notification context', async () => {
    await app.client.setLogLevel('debug');
    const started = await app.client.callTool('toggle-simulated-logging', {});
    try {
      expect(textOf(started)).toMatch(/^Started simulated, random-leveled logging/);
      const [entry] = await eventually(
        'a simulated log entry',
        () => app.handlers.logs.length > 0 && app.handlers.logs,
      );
      expect(entry.level).toMatch(/^(debug|info|notice|warning|error|critical|alert|emergency)$/);
      expect(entry.params).toEqual({ level: entry.level, data: expect.stringMatching(/message/i) });
      expect(entry.ctx).toEqual({
        client: 'e2e-client',
        serverId: SERVER_ID,
        era: 'legacy',
        method: 'notifications/message',
      });
    } finally {
      expect(textOf(await app.client.callTool('toggle-simulated-logging', {}))).toMatch(/^Stopped simulated logging/);
    }
  });

  it('logging: a log entry echoing client-supplied text arrives without control or bidi characters', async () => {
    await app.client.setLogLevel('info');
    const uri = 'demo://resource/dynamic/text/9?note=\u202Eevil\u0007\u2028x\u200B';
    await app.client.subscribe(uri);
    try {
      const entry = await eventually('the subscribe log entry', () =>
        app.handlers.logs.find((log) => String(log.params.data).startsWith('Received Subscribe')),
      );
      expect(entry.params.data).toContain('demo://resource/dynamic/text/9?note=');
      expect(entry.params.data).not.toMatch(
        /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/,
      );
      expect(entry.params).toEqual({ level: 'info', data: expect.any(String) });
      // @OnNotification() sees the same sanitized entry.
      const notification = await eventually('the entry as a notification', () =>
        app.handlers.notificationsOf('notifications/message').find((n) => n.params.data === entry.params.data),
      );
      expect(notification.ctx).toEqual({
        client: 'e2e-client',
        serverId: SERVER_ID,
        era: 'legacy',
        method: 'notifications/message',
      });
    } finally {
      await app.client.unsubscribe(uri);
    }
  });

  it('subscriptions: resources/subscribe, then the simulated update reaches @OnNotification', async () => {
    const uri = 'demo://resource/dynamic/text/1';
    await app.client.subscribe(uri);
    const started = await app.client.callTool('toggle-subscriber-updates', {});
    try {
      expect(textOf(started)).toMatch(/^Started simulated resource updated notifications/);
      const update = await eventually(
        'notifications/resources/updated',
        () => app.handlers.notificationsOf('notifications/resources/updated')[0],
      );
      expect(update.params).toEqual({ uri });
      expect(update.ctx).toEqual({
        client: 'e2e-client',
        serverId: SERVER_ID,
        era: 'legacy',
        method: 'notifications/resources/updated',
      });
    } finally {
      await app.client.callTool('toggle-subscriber-updates', {});
      await app.client.unsubscribe(uri);
    }
  });

  it('ping and the health indicator', async () => {
    expect(await app.client.ping()).toEqual({});
    expect(await app.health.isHealthy('mcp')).toEqual({
      mcp: {
        status: 'up',
        [SERVER_ID]: { up: true, state: 'connected', era: 'legacy', protocolVersion: '2025-11-25' },
      },
    });
  });

  it('an unknown tool comes back as the server reports it (an isError result naming -32602)', async () => {
    const result = await app.client.callTool('no-such-tool', {});
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'MCP error -32602: Tool no-such-tool not found' }],
    });
  });
});

function connectTo(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: 2_000 }, () => (socket.destroy(), resolve()));
    socket.once('error', reject);
    socket.once(
      'timeout',
      () => (socket.destroy(), reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }))),
    );
  });
}

import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { spawnSync } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Server } from 'node:http';
import { join } from 'node:path';
import { McpClientError, McpServerConfig } from '@conduit-mcp/client';
import { MCP_CHANNELS, McpHandlerEvent, McpModule } from '@conduit-mcp/server';
import { DEMO_PROVIDERS } from '../apps/demo-server/src/demo.providers';
import { ClientApp, eventually, startClientApp } from './support/client-app';
import { RunningServer, startDemoServer } from './support/demo-server';
import { errorOf, textOf } from './support/results';
import { alive } from './support/client-peer.process';

/**
 * The client library against this project's own demo server (apps/demo-server providers), in both eras, over
 * Streamable HTTP and the legacy HTTP+SSE transport (in process, 127.0.0.1:0) and over stdio
 * (`node scripts/start-app.js demo-server --stdio`, spawned by the client's stdio transport): elicitation, sampling,
 * progress, logging, cancellation, deadlines, subscriptions, session loss, health.
 */

const root = join(__dirname, '..');
const START = [join(root, 'scripts', 'start-app.js'), 'demo-server', '--stdio'];
const SERVER_ID = 'demo';

type Kind = 'http' | 'sse' | 'stdio';
type Era = 'legacy' | 'modern';

const REVISION: Record<Era, string> = { legacy: '2025-11-25', modern: '2026-07-28' };

beforeAll(() => {
  // Builds the demo once (when stale) so the stdio children start quickly; stdin is closed, so it then exits.
  const warmup = spawnSync(process.execPath, START, { cwd: root, input: '', encoding: 'utf8', timeout: 170_000 });
  expect(warmup.status).toBe(0);
}, 180_000);

describe.each<[Kind, Era]>([
  ['http', 'legacy'],
  ['http', 'modern'],
  ['sse', 'legacy'],
  ['stdio', 'legacy'],
  ['stdio', 'modern'],
])('the demo server over %s, client era %s', (kind, era) => {
  let server: RunningServer | undefined;
  let app: ClientApp;
  let stdioPid: number | undefined;
  const toolEvents: McpHandlerEvent[] = [];
  const onToolEvent = (event: unknown) => toolEvents.push(event as McpHandlerEvent);

  beforeAll(async () => {
    let transport: McpServerConfig['transport'];
    if (kind !== 'stdio') {
      server = await startDemoServer();
      transport =
        kind === 'http' ? { type: 'http', url: server.url } : { type: 'sse', url: new URL('/sse', server.url).href };
      subscribe(MCP_CHANNELS.tool, onToolEvent);
    } else {
      transport = { type: 'stdio', command: process.execPath, args: START, cwd: root };
    }
    app = await startClientApp({ id: SERVER_ID, transport, era }, { assigns: { tenant: 'default' } });
    stdioPid = (app.client as unknown as { transport?: { pid?: number } }).transport?.pid;
  }, 30_000);

  afterAll(async () => {
    unsubscribe(MCP_CHANNELS.tool, onToolEvent);
    let leaked: number | undefined;
    try {
      await app?.close();
    } finally {
      await server?.close();
      // Closing the client ends its stdio child; make sure, by its PID.
      if (stdioPid !== undefined && alive(stdioPid)) {
        process.kill(stdioPid, 'SIGKILL');
        leaked = stdioPid;
      }
    }
    if (leaked !== undefined) throw new Error(`closing the client left the stdio server ${leaked} running`);
  }, 15_000);

  beforeEach(() => {
    app.handlers.reset();
    toolEvents.length = 0;
  });

  // A legacy question is tied to its call by the response stream that carries it (Streamable HTTP) or, on stdio, by
  // being the one call in flight; then it gets the call's assigns. HTTP+SSE carries every server message on one
  // stream and the reference names no fallback for it, so questions there get the client's assigns.
  const callAssigns = kind === 'sse' ? { tenant: 'default' } : { user: 'ada' };

  /** Adds a note and returns its id. */
  async function addNote(title: string): Promise<string> {
    const added = await app.client.callTool('add_note', { title, body: 'written by the client e2e suite' });
    const [link] = added.content as Array<{ type: string; uri: string }>;
    expect(link.type).toBe('resource_link');
    return link.uri.slice('notes://notes/'.length);
  }

  it('connects in the pinned era and lists what the demo serves (the guarded admin tool hidden)', async () => {
    expect(app.client).toMatchObject({ state: 'connected', era, protocolVersion: REVISION[era] });
    expect(app.client.serverInfo).toMatchObject({ name: 'conduit-demo' });
    const tools = (await app.client.listTools()).map((tool) => tool.name).sort();
    expect(tools).toEqual(['add_note', 'delete_note', 'forecast', 'summarize_forecast', 'weather_report']);
    const forecast = await app.client.callTool('forecast', { city: 'Oslo', days: 2 });
    expect(forecast.structuredContent).toMatchObject({
      city: 'Oslo',
      units: 'metric',
      days: [expect.any(Object), expect.any(Object)],
    });
  });

  it('delete_note: the confirmation is asked through @OnElicitation and an accept deletes the note', async () => {
    const id = await addNote(`to delete over ${kind}/${era}`);
    app.handlers.elicitationAnswer = { action: 'accept', content: { confirm: true } };
    const result = await app.client.callTool('delete_note', { id }, { assigns: { user: 'ada' } });
    expect(textOf(result)).toBe(`Deleted the note "to delete over ${kind}/${era}".`);
    const [asked] = app.handlers.elicitations;
    expect(asked.params).toMatchObject({
      message: `Delete the note "to delete over ${kind}/${era}"?`,
      requestedSchema: { required: ['confirm'] },
    });
    expect(asked.ctx).toMatchObject({
      client: 'e2e-client',
      serverId: SERVER_ID,
      era,
      mode: 'form',
      assigns: callAssigns,
      fields: { confirm: { sensitiveSuspected: false } },
    });
    if (era === 'legacy' && kind !== 'sse') expect(asked.ctx.relatedRequestId).toEqual(expect.any(Number));
    else expect(asked.ctx.relatedRequestId).toBeUndefined();
    expect(asked.ctx.origin).toBe(server ? new URL(server.url).origin : undefined);
    const gone = await errorOf<McpClientError>(app.client.readResource(`notes://notes/${id}`));
    expect(gone.kind).toBe('rpc');
  });

  it('delete_note: a decline keeps the note', async () => {
    const id = await addNote('to keep');
    app.handlers.elicitationAnswer = { action: 'decline' };
    expect(textOf(await app.client.callTool('delete_note', { id }))).toBe('Kept the note.');
    expect(resourceText(await app.client.readResource(`notes://notes/${id}`))).toBe(
      '# to keep\n\nwritten by the client e2e suite',
    );
  });

  it('summarize_forecast: @OnSampling answers the model request tied to the call', async () => {
    const result = await app.client.callTool('summarize_forecast', { city: 'Bergen' }, { assigns: { user: 'ada' } });
    expect(textOf(result)).toMatch(/^sampled: Summarize in one sentence: \[.*\] \(model: e2e-model\)$/);
    const [asked] = app.handlers.samplings;
    expect(asked.params).toMatchObject({ maxTokens: 200 });
    expect(asked.ctx).toMatchObject({ serverId: SERVER_ID, era, assigns: callAssigns });
    if (era === 'legacy') expect(asked.ctx.callsInFlight).toBe(1);
  });

  it('summarize_forecast: a refusal by the handler reaches the caller', async () => {
    app.handlers.samplingAnswer = () => {
      throw new Error('no model available');
    };
    const error = await errorOf<McpClientError>(app.client.callTool('summarize_forecast', { city: 'Bergen' }));
    if (era === 'modern') {
      // Modern: the handler runs in the calling flow, and its failure is the call's.
      expect(error).toMatchObject({ kind: 'input_handler', message: expect.stringContaining('no model available') });
    } else {
      // Legacy: the crash is answered -32603 without internals, and the server fails the call with it.
      expect(error).toMatchObject({ kind: 'rpc', code: -32603 });
      expect(error.message).not.toContain('no model available');
    }
  });

  it('weather_report: progress reaches onProgress, and log entries reach @OnLog at the level set', async () => {
    await app.client.setLogLevel('debug');
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await app.client.callTool('weather_report', { steps: 3 }, { onProgress: (p) => progress.push(p) });
    expect(textOf(result)).toBe('Report compiled in 3 steps.');
    expect(progress).toEqual([1, 2, 3].map((step) => ({ progress: step, total: 3, message: `Step ${step} of 3` })));
    const logs = await eventually('three log entries', () => app.handlers.logs.length >= 3 && app.handlers.logs);
    expect(logs.map((log) => log.params)).toEqual(
      [1, 2, 3].map((step) => expect.objectContaining({ level: 'debug', data: { step } })),
    );
    expect(logs[0].ctx).toEqual({ client: 'e2e-client', serverId: SERVER_ID, era, method: 'notifications/message' });
    await app.client.setLogLevel('warning');
    await app.client.callTool('weather_report', { steps: 1 });
    await app.client.ping();
    expect(app.handlers.logs).toHaveLength(3);
  });

  it('weather_report: cancelled through a signal (kind cancelled); the server stops the handler', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 250);
    const error = await errorOf<McpClientError>(
      app.client.callTool('weather_report', { steps: 50 }, { signal: controller.signal }),
    );
    expect(error).toMatchObject({ kind: 'cancelled' });
    if (server) {
      const event = await eventually('the cancelled tool event', () =>
        toolEvents.find((e) => e.name === 'weather_report'),
      );
      expect(event.status).toBe('cancelled');
      expect(event.durationMs).toBeLessThan(2_000);
    }
    expect(textOf(await app.client.callTool('weather_report', { steps: 1 }))).toBe('Report compiled in 1 steps.');
  });

  it('weather_report: a deadline ends the call with kind timeout', async () => {
    const error = await errorOf<McpClientError>(app.client.callTool('weather_report', { steps: 50 }, { timeout: 200 }));
    expect(error).toMatchObject({ kind: 'timeout' });
    if (server) {
      const event = await eventually('the cancelled tool event', () =>
        toolEvents.find((e) => e.name === 'weather_report'),
      );
      expect(event.status).toBe('cancelled');
    }
  });

  it('a question whose call is cancelled: the handler is aborted (legacy: the server cancels its request)', async () => {
    const id = await addNote('cancel me');
    let sawAbort!: (reason: string) => void;
    const aborted = new Promise<string>((resolve) => (sawAbort = resolve));
    app.handlers.elicitationAnswer = (_params, ctx) =>
      new Promise((resolve) =>
        ctx.signal.addEventListener('abort', () => (sawAbort('aborted'), resolve({ action: 'cancel' })), {
          once: true,
        }),
      );
    const controller = new AbortController();
    const call = app.client.callTool('delete_note', { id }, { signal: controller.signal });
    await eventually('the question', () => app.handlers.elicitations.length === 1);
    controller.abort();
    expect(await errorOf<McpClientError>(call)).toMatchObject({ kind: 'cancelled' });
    expect(
      await Promise.race([aborted, new Promise((resolve) => setTimeout(() => resolve('still running'), 2_000))]),
    ).toBe('aborted');
  });

  it('subscriptions: an updated notes index reaches @OnNotification (legacy subscribe, modern listen)', async () => {
    const uri = 'notes://index';
    let closeListen: (() => void) | undefined;
    if (era === 'legacy') {
      await app.client.subscribe(uri);
      await expect(app.client.listen({ resourceSubscriptions: [uri] })).rejects.toMatchObject({ kind: 'protocol' });
    } else {
      const listen = await app.client.listen({ resourceSubscriptions: [uri], toolsListChanged: true });
      expect(listen.acknowledged).toMatchObject({ resourceSubscriptions: [uri] });
      closeListen = () => listen.close();
      await expect(app.client.subscribe(uri)).rejects.toMatchObject({ kind: 'protocol' });
    }
    try {
      await addNote('announced');
      const update = await eventually(
        'notifications/resources/updated',
        () => app.handlers.notificationsOf('notifications/resources/updated')[0],
      );
      expect(update.params).toMatchObject({ uri });
      expect(update.ctx).toEqual({
        client: 'e2e-client',
        serverId: SERVER_ID,
        era,
        method: 'notifications/resources/updated',
      });
    } finally {
      if (era === 'legacy') await app.client.unsubscribe(uri);
      closeListen?.();
    }
  });

  it('resources, templates, completions and prompts', async () => {
    const id = await addNote('for reading');
    expect((await app.client.listResources()).map((resource) => resource.uri)).toContain('notes://index');
    expect((await app.client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual([
      'notes://notes/{id}',
    ]);
    const index = JSON.parse(resourceText(await app.client.readResource('notes://index'))) as Array<{ id: string }>;
    expect(index.map((note) => note.id)).toContain(id);
    const completed = await app.client.complete(
      { type: 'ref/resource', uri: 'notes://notes/{id}' },
      { name: 'id', value: id.slice(0, 1) },
    );
    expect((completed.completion as { values: string[] }).values).toContain(id);
    const cities = await app.client.complete({ type: 'ref/prompt', name: 'trip_brief' }, { name: 'city', value: 'Be' });
    expect((cities.completion as { values: string[] }).values).toEqual(['Berlin', 'Bergen']);
    expect((await app.client.listPrompts()).map((prompt) => prompt.name)).toEqual(['trip_brief']);
    const prompt = await app.client.getPrompt('trip_brief', { city: 'Oslo', style: 'detailed' });
    expect(prompt.messages).toEqual([
      {
        role: 'user',
        content: { type: 'text', text: 'Use the forecast tool for Oslo, then give a detailed packing list.' },
      },
    ]);
  });

  it('McpClientHealthIndicator reports the server up', async () => {
    expect(await app.health.isHealthy('mcp')).toEqual({
      mcp: { status: 'up', [SERVER_ID]: { up: true, state: 'connected', era, protocolVersion: REVISION[era] } },
    });
  });
});

describe.each<[Kind, Era]>([
  ['http', 'legacy'],
  ['stdio', 'legacy'],
  ['http', 'modern'],
])('deadlines while a question is answered: the demo server over %s, client era %s', (kind, era) => {
  let server: RunningServer | undefined;
  let app: ClientApp;

  beforeAll(async () => {
    let transport: McpServerConfig['transport'];
    if (kind === 'http') {
      server = await startDemoServer();
      transport = { type: 'http', url: server.url };
    } else {
      transport = { type: 'stdio', command: process.execPath, args: START, cwd: root };
    }
    app = await startClientApp({ id: SERVER_ID, transport, era }, { handlerTimeoutMs: 1_000 });
  }, 30_000);

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await server?.close();
    }
  }, 15_000);

  beforeEach(() => app.handlers.reset());

  const slowModel = (ms: number) => async (_params: Record<string, unknown>) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { role: 'assistant', content: { type: 'text', text: 'slow answer' }, model: 'slow-model' };
  };

  it('the call deadline is paused while the handler answers (timeout 300 ms, handler 600 ms)', async () => {
    app.handlers.samplingAnswer = slowModel(600);
    const result = await app.client.callTool('summarize_forecast', { city: 'Oslo' }, { timeout: 300 });
    expect(textOf(result)).toBe('slow answer (model: slow-model)');
  });

  it('maxTotalTimeout bounds the call even while paused (timeout 300 ms, max total 450 ms, handler 600 ms)', async () => {
    app.handlers.samplingAnswer = slowModel(600);
    const started = Date.now();
    const error = await errorOf<McpClientError>(
      app.client.callTool('summarize_forecast', { city: 'Oslo' }, { timeout: 300, maxTotalTimeout: 450 }),
    );
    expect(error).toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(600);
  });

  if (era === 'legacy') {
    it('a handler slower than handlerTimeoutMs (1 s) is cut off: the server gets -32603 and the handler its abort', async () => {
      let aborted = false;
      app.handlers.samplingAnswer = (_params, ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => ((aborted = true), reject(new Error('aborted'))), { once: true }),
        );
      const started = Date.now();
      const error = await errorOf<McpClientError>(
        app.client.callTool('summarize_forecast', { city: 'Oslo' }, { timeout: 10_000 }),
      );
      expect(error).toMatchObject({ kind: 'rpc', code: -32603 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(aborted).toBe(true);
    });
  }
});

describe('the demo server over HTTP, client era auto', () => {
  let server: RunningServer;
  let app: ClientApp;

  beforeAll(async () => {
    server = await startDemoServer();
    app = await startClientApp({ id: SERVER_ID, transport: { type: 'http', url: server.url }, era: 'auto' });
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await server?.close();
    }
  });

  it('the server/discover probe picks the modern era of the dual-era endpoint', async () => {
    expect(app.client).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28' });
    app.handlers.elicitationAnswer = { action: 'decline' };
    const id = (await app.client.callTool('add_note', { title: 'auto', body: '' })).content as Array<{ uri: string }>;
    expect(textOf(await app.client.callTool('delete_note', { id: id[0].uri.slice('notes://notes/'.length) }))).toBe(
      'Kept the note.',
    );
    expect(app.handlers.elicitations[0].ctx.era).toBe('modern');
  });

  it('a server gone away makes the health indicator report it down', async () => {
    await server.close();
    const health = await app.health.isHealthy('mcp', 1_000);
    expect(health).toMatchObject({ mcp: { status: 'down', [SERVER_ID]: { up: false, error: expect.any(String) } } });
  });
});

describe('the demo server restarted under a connected legacy HTTP client', () => {
  let server: INestApplication | undefined;
  let port: number;
  let app: ClientApp;

  /** The demo providers behind McpModule on 127.0.0.1 (`port` 0: any free port). */
  async function listenOn(at: number): Promise<INestApplication> {
    @Module({
      imports: [McpModule.forRoot({ name: 'conduit-demo', version: '0.1.0', http: { path: '/mcp' } })],
      providers: DEMO_PROVIDERS,
    })
    class RestartableDemoModule {}
    const nest = await NestFactory.create(RestartableDemoModule, { logger: false });
    await nest.listen(at, '127.0.0.1');
    port = (nest.getHttpServer().address() as { port: number }).port;
    return nest;
  }

  /** Ends the app, cutting the connections a client still holds open. */
  async function stop(nest: INestApplication): Promise<void> {
    (nest.getHttpServer() as Server).closeAllConnections();
    await nest.close();
  }

  beforeAll(async () => {
    server = await listenOn(0);
    app = await startClientApp({
      id: SERVER_ID,
      transport: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
      era: 'legacy',
    });
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      if (server) await stop(server);
    }
  });

  it('its sessions gone, the 404 makes the client initialize again: later calls work on a new session', async () => {
    const sessionOf = () => (app.client as unknown as { transport?: { sessionId?: string } }).transport?.sessionId;
    const before = sessionOf();
    expect(before).toEqual(expect.any(String));
    await stop(server!);
    server = await listenOn(port);
    const outcomes: Array<Record<string, unknown> | McpClientError> = [];
    for (let attempt = 0; attempt < 3 && !outcomes.some((outcome) => !(outcome instanceof McpClientError)); attempt++) {
      outcomes.push(await app.client.callTool('forecast', { city: 'Oslo' }).catch((error: McpClientError) => error));
    }
    // The call that met the 404 fails (it is not replayed); the next one runs on the new session.
    expect(outcomes).toContainEqual(
      expect.objectContaining({ kind: 'rpc', code: -32001, message: 'Session not found' }),
    );
    expect(outcomes[outcomes.length - 1]).toMatchObject({ structuredContent: { city: 'Oslo' } });
    expect(sessionOf()).toEqual(expect.any(String));
    expect(sessionOf()).not.toBe(before);
    expect(app.client.state).toBe('connected');
  });

  it('the server app closes while the client still holds its GET stream', async () => {
    const closing = server!.close();
    const outcome = await Promise.race([
      closing.then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still closing after 2 s'), 2_000)),
    ]);
    if (outcome !== 'closed') {
      (server!.getHttpServer() as Server).closeAllConnections();
      await closing;
    }
    server = undefined;
    expect(outcome).toBe('closed');
  });
});

/** The text of a read result's first contents entry. */
function resourceText(result: Record<string, unknown>): string {
  return (result.contents as Array<{ text: string }>)[0].text;
}

// Tasks in revision 2025-11-25 (its experimental tasks): raw JSON-RPC over an in-memory transport (a session as
// stdio has), every server message checked against the 2025-11-25 schema; then the official SDK 1.x client as an
// independent requester over stateful Streamable HTTP, on both adapters.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ErrorCode, META_RELATED_TASK, McpError } from '@conduit-mcp/core';
import { McpArgs, McpCtx, McpModule, McpRequestContext, McpServer, McpTool } from '@conduit-mcp/server';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { pause } from '../support/abortable-pause';
import { HTTP_ADAPTERS, createHttpApp } from '../support/http-adapters';
import { scrubbedEnv } from '../support/client-peer.process';
import { RawClient } from '../support/raw-client';
import { answeringClient } from '../support/sdk-client';
import { WireSchema } from '../support/wire-schema';

const wire = WireSchema.for('2025-11-25');
const run = promisify(execFile);

@Injectable()
class Jobs {
  static aborted = 0;

  @McpTool({ name: 'quick', input: { type: 'object', properties: {} } })
  quick() {
    return 'quick';
  }

  @McpTool({
    name: 'slow',
    task: 'optional',
    input: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
  })
  async slow(@McpArgs() { ms }: { ms: number }, @McpCtx() ctx: McpRequestContext) {
    try {
      await pause(ms / 2, ctx.signal);
      ctx.progress(1, 2, 'half way');
      await pause(ms / 2, ctx.signal);
    } catch (error) {
      Jobs.aborted++;
      throw error;
    }
    return `slept ${ms}`;
  }

  @McpTool({ name: 'must_task', task: 'required' })
  async mustTask() {
    return { content: [{ type: 'text' as const, text: 'bad input' }], isError: true };
  }

  @McpTool({ name: 'breaks', task: 'optional' })
  breaks() {
    throw new McpError(ErrorCode.InternalError, 'broken on purpose');
  }

  @McpTool({ name: 'asks', task: 'optional' })
  async asks(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('confirm', {
      message: 'Sure?',
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    return answer.action === 'accept' && answer.content?.confirm === true ? 'yes' : 'no';
  }
}

const OPTIONS = { name: 'legacy-tasks', version: '1', pageSize: 2, tasks: { pollIntervalMs: 50, maxTtlMs: 60_000 } };

@Module({ imports: [McpModule.forRoot({ ...OPTIONS, http: false })], providers: [Jobs] })
class InMemoryModule {}

@Module({ imports: [McpModule.forRoot(OPTIONS)], providers: [Jobs] })
class HttpModule {}

/** A RawClient whose every received message is checked against the 2025-11-25 schema. */
class CheckedClient {
  readonly problems: string[] = [];
  private readonly methods = new Map<unknown, string>();
  private checked = 0;

  constructor(readonly raw: RawClient) {}

  async request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = `${method}-${Math.random()}`;
    this.methods.set(id, method);
    const response = await this.raw.request(method, params, id);
    this.check();
    return response;
  }

  /** Sends a request without waiting for its answer; resolves the id to wait for. */
  async start(method: string, params?: Record<string, unknown>): Promise<string> {
    const id = `${method}-${Math.random()}`;
    this.methods.set(id, method);
    await this.raw.send({ jsonrpc: '2.0', id, method, params });
    return id;
  }

  async answerOf(id: string, timeoutMs = 5_000): Promise<Record<string, unknown>> {
    const response = await this.raw.waitFor((m) => m.id === id && !('method' in m), timeoutMs);
    this.check();
    return response;
  }

  check(): void {
    for (; this.checked < this.raw.received.length; this.checked++) {
      const message = this.raw.received[this.checked];
      this.problems.push(...wire.check(message, this.methods.get(message.id)).map((p) => `${message.method}: ${p}`));
    }
  }
}

describe('tasks in revision 2025-11-25 (raw JSON-RPC, in-memory session)', () => {
  let app: INestApplication;
  let server: McpServer;
  let client: CheckedClient;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [InMemoryModule] }).compile();
    app = await moduleRef.createNestApplication().init();
    server = app.get(McpServer);
  });

  beforeEach(async () => {
    client = new CheckedClient(RawClient.connect(server));
    await client.raw.initialize({ elicitation: { form: {} } });
    Jobs.aborted = 0;
  });

  afterEach(async () => {
    client.check();
    expect(client.problems).toEqual([]);
    await client.raw.close();
  });

  afterAll(() => app.close());

  const callAsTask = (name: string, args: Record<string, unknown> = {}, task: unknown = {}, meta?: object) =>
    client.request('tools/call', { name, arguments: args, task, ...(meta ? { _meta: meta } : {}) });
  const taskIdOf = (response: Record<string, unknown>) =>
    ((response.result as { task: { taskId: string } }).task ?? {}).taskId;
  const statusOf = async (taskId: string) =>
    ((await client.request('tasks/get', { taskId })).result as { status: string }).status;

  it('advertises tasks only to a 2025-11-25 session, and each tool’s task support in tools/list', async () => {
    const modern = await client.raw.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'again', version: '1' },
    });
    expect(modern).toMatchObject({ error: { code: ErrorCode.InvalidRequest } }); // already initialized
    const other = RawClient.connect(server);
    try {
      const older = await other.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'old', version: '1' },
      });
      expect((older.result as { capabilities: object }).capabilities).not.toHaveProperty('tasks');
      const fresh = RawClient.connect(server);
      const current = await fresh.initialize();
      expect((current.result as { capabilities: object }).capabilities).toMatchObject({
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      });
      await fresh.close();
    } finally {
      await other.close();
    }
    const tools = [] as Array<{ name: string; execution?: object }>;
    for (let cursor: unknown; ;) {
      const page = (await client.request('tools/list', cursor ? { cursor } : {})).result as {
        tools: typeof tools;
        nextCursor?: string;
      };
      tools.push(...page.tools);
      if (!(cursor = page.nextCursor)) break;
    }
    const support = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution]));
    expect(support).toEqual({
      quick: undefined,
      slow: { taskSupport: 'optional' },
      must_task: { taskSupport: 'required' },
      breaks: { taskSupport: 'optional' },
      asks: { taskSupport: 'optional' },
    });
  });

  it('answers a task-augmented call with the task at once; tasks/result waits, then answers the tool’s result', async () => {
    const created = await callAsTask('slow', { ms: 200 }, { ttl: 30_000 });
    const task = (created.result as { task: Record<string, unknown> }).task;
    expect(task).toMatchObject({ status: 'working', ttl: 30_000, pollInterval: 50 });
    expect(Date.parse(task.createdAt as string)).not.toBeNaN();
    const taskId = task.taskId as string;
    expect(await statusOf(taskId)).toBe('working');
    const result = await client.request('tasks/result', { taskId });
    expect(result.result).toEqual({
      content: [{ type: 'text', text: 'slept 200' }],
      _meta: { [META_RELATED_TASK]: { taskId } },
    });
    expect(await statusOf(taskId)).toBe('completed');
    // Once terminal, the result stays readable until the task expires.
    expect((await client.request('tasks/result', { taskId })).result).toMatchObject({
      content: [{ text: 'slept 200' }],
    });
  });

  it('clamps the retention asked for to the server’s bounds', async () => {
    const long = await callAsTask('slow', { ms: 10 }, { ttl: 10 * 60 * 60_000 });
    expect((long.result as { task: { ttl: number } }).task.ttl).toBe(60_000);
    const none = await callAsTask('slow', { ms: 10 });
    expect((none.result as { task: { ttl: number } }).task.ttl).toBe(60_000); // the default hour, clamped too
  });

  it('keeps the rules of tool-level negotiation: -32601 for a forbidden or a required tool misused, -32602 for a bad task', async () => {
    expect(await callAsTask('quick')).toMatchObject({ error: { code: ErrorCode.MethodNotFound } });
    expect(await client.request('tools/call', { name: 'must_task', arguments: {} })).toMatchObject({
      error: { code: ErrorCode.MethodNotFound, message: expect.stringContaining('params.task') },
    });
    for (const task of [7, [], { ttl: -1 }, { ttl: 'soon' }, { ttl: 1.5 }])
      expect(await callAsTask('slow', { ms: 1 }, task)).toMatchObject({ error: { code: ErrorCode.InvalidParams } });
    // An optional tool called without a task runs inline.
    expect((await client.request('tools/call', { name: 'slow', arguments: { ms: 1 } })).result).toMatchObject({
      content: [{ text: 'slept 1' }],
    });
    // Invalid arguments are the tool error they always are, at once, not a task.
    expect((await callAsTask('slow', { ms: 'x' })).result).toMatchObject({ isError: true });
  });

  it('ignores params.task in a session of an older revision, where a tool that requires a task cannot run', async () => {
    const old = new CheckedClient(RawClient.connect(server));
    try {
      await old.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'old', version: '1' },
      });
      expect((await old.request('tools/call', { name: 'slow', arguments: { ms: 1 }, task: {} })).result).toEqual({
        content: [{ type: 'text', text: 'slept 1' }],
      });
      expect(await old.request('tools/call', { name: 'must_task', arguments: {}, task: {} })).toMatchObject({
        error: { code: ErrorCode.MethodNotFound },
      });
      expect(await old.request('tasks/get', { taskId: 'x' })).toMatchObject({
        error: { code: ErrorCode.MethodNotFound },
      });
    } finally {
      await old.raw.close();
    }
  });

  it('ends a task whose tool returned an error as failed, with that result; a JSON-RPC error as failed, with the error', async () => {
    const toolError = taskIdOf(await callAsTask('must_task'));
    expect((await client.request('tasks/result', { taskId: toolError })).result).toMatchObject({
      isError: true,
      content: [{ text: 'bad input' }],
      _meta: { [META_RELATED_TASK]: { taskId: toolError } },
    });
    expect(await statusOf(toolError)).toBe('failed');
    const rpcError = taskIdOf(await callAsTask('breaks'));
    expect(await client.request('tasks/result', { taskId: rpcError })).toMatchObject({
      error: { code: ErrorCode.InternalError, message: 'broken on purpose' },
    });
    expect((await client.request('tasks/get', { taskId: rpcError })).result).toMatchObject({
      status: 'failed',
      statusMessage: 'broken on purpose',
    });
  });

  it('cancels a running task: the answer is the cancelled task, the handler is aborted; a terminal task cannot be cancelled', async () => {
    const taskId = taskIdOf(await callAsTask('slow', { ms: 5_000 }));
    const waiting = await client.start('tasks/result', { taskId });
    const cancelled = await client.request('tasks/cancel', { taskId });
    expect(cancelled.result).toMatchObject({ taskId, status: 'cancelled' });
    expect(await client.answerOf(waiting)).toMatchObject({
      error: { code: ErrorCode.InternalError, data: { taskId, status: 'cancelled' } },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Jobs.aborted).toBe(1);
    expect(await client.request('tasks/cancel', { taskId })).toMatchObject({
      error: { code: ErrorCode.InvalidParams },
    });
    const done = taskIdOf(await callAsTask('slow', { ms: 1 }));
    await client.request('tasks/result', { taskId: done });
    expect(await client.request('tasks/cancel', { taskId: done })).toMatchObject({
      error: { code: ErrorCode.InvalidParams, message: expect.stringContaining('completed') },
    });
  });

  it("lists the session's own tasks, newest first, a page at a time; another session sees none of them", async () => {
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push(taskIdOf(await callAsTask('slow', { ms: 1 })));
    const first = (await client.request('tasks/list')).result as {
      tasks: Array<{ taskId: string }>;
      nextCursor?: string;
    };
    expect(first.tasks.map((task) => task.taskId)).toEqual([ids[2], ids[1]]);
    const second = (await client.request('tasks/list', { cursor: first.nextCursor })).result as typeof first;
    expect(second.tasks.map((task) => task.taskId)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeUndefined();
    expect(await client.request('tasks/list', { cursor: 'forged' })).toMatchObject({
      error: { code: ErrorCode.InvalidParams },
    });

    const other = new CheckedClient(RawClient.connect(server));
    try {
      await other.raw.initialize();
      expect(((await other.request('tasks/list')).result as { tasks: unknown[] }).tasks).toEqual([]);
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'])
        expect(await other.request(method, { taskId: ids[0] })).toMatchObject({
          error: { code: ErrorCode.InvalidParams, message: expect.stringContaining('Unknown task') },
        });
      expect(other.problems).toEqual([]);
    } finally {
      await other.raw.close();
    }
  });

  it('asks inside a task: input_required, the question on the tasks/result stream with the related task, then the result', async () => {
    const taskId = taskIdOf(await callAsTask('asks'));
    const waiting = await client.start('tasks/result', { taskId });
    const question = await client.raw.waitFor((m) => m.method === 'elicitation/create');
    expect(question.params).toMatchObject({ message: 'Sure?', _meta: { [META_RELATED_TASK]: { taskId } } });
    expect(await statusOf(taskId)).toBe('input_required');
    await client.raw.send({
      jsonrpc: '2.0',
      id: question.id,
      result: { action: 'accept', content: { confirm: true } },
    });
    expect((await client.answerOf(waiting)).result).toMatchObject({ content: [{ text: 'yes' }] });
    const statuses = client.raw.received
      .filter((m) => m.method === 'notifications/tasks/status')
      .map((m) => (m.params as { taskId: string; status: string }).status);
    expect(statuses).toEqual(['input_required', 'working', 'completed']);
    for (const m of client.raw.received.filter((r) => r.method === 'notifications/tasks/status'))
      expect((m.params as { _meta?: unknown })._meta).toBeUndefined();
  });

  it("keeps the call's progress token for the task's life", async () => {
    const taskId = taskIdOf(await callAsTask('slow', { ms: 200 }, {}, { progressToken: 'p-1' }));
    await client.request('tasks/result', { taskId });
    const progress = client.raw.received.filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => m.params)).toEqual([
      { progressToken: 'p-1', progress: 1, total: 2, message: 'half way' },
    ]);
  });

  it('cancels the tasks of a session when the session ends (nobody could read them again)', async () => {
    const other = RawClient.connect(server);
    await other.initialize();
    await other.request('tools/call', { name: 'slow', arguments: { ms: 5_000 }, task: {} });
    await other.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(Jobs.aborted).toBe(1);
  });
});

describe('tasks in revision 2025-11-25: expiry', () => {
  it('forgets a task past its retention and aborts its handler', async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'expiry', version: '1', http: false, tasks: { maxTtlMs: 1_000 } })],
      providers: [Jobs],
    })
    class ExpiryModule {}
    const moduleRef = await Test.createTestingModule({ imports: [ExpiryModule] }).compile();
    const app = await moduleRef.createNestApplication().init();
    const client = RawClient.connect(app.get(McpServer));
    try {
      await client.initialize();
      Jobs.aborted = 0;
      const created = await client.request('tools/call', { name: 'slow', arguments: { ms: 5_000 }, task: { ttl: 1 } });
      const { taskId, ttl } = (created.result as { task: { taskId: string; ttl: number } }).task;
      expect(ttl).toBe(1_000); // the least a request may ask for
      const waiting = client.request('tasks/result', { taskId });
      expect(await waiting).toMatchObject({ error: { code: ErrorCode.InvalidParams } });
      expect(Jobs.aborted).toBe(1);
      expect(await client.request('tasks/get', { taskId })).toMatchObject({ error: { code: ErrorCode.InvalidParams } });
    } finally {
      await client.close();
      await app.close();
    }
  });
});

describe.each(HTTP_ADAPTERS)('tasks in revision 2025-11-25 with the official SDK 1.x client (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await createHttpApp(HttpModule, adapter);
    await app.listen(0, '127.0.0.1');
    url = `${await app.getUrl()}/mcp`;
  });

  afterAll(() => app.close());

  async function connect() {
    const peer = answeringClient();
    await peer.client.connect(peer.recorder.tap(new StreamableHTTPClientTransport(new URL(url))));
    return peer;
  }

  async function stream(peer: Awaited<ReturnType<typeof connect>>, name: string, args: Record<string, unknown>) {
    const seen: Array<{ type: string; status?: string; result?: unknown; error?: unknown }> = [];
    const messages = peer.client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
      task: { ttl: 30_000 },
    });
    for await (const message of messages) {
      const entry: (typeof seen)[number] = { type: message.type };
      if (message.type === 'taskStatus' || message.type === 'taskCreated') entry.status = message.task.status;
      if (message.type === 'result') entry.result = message.result;
      if (message.type === 'error') entry.error = message.error.message;
      seen.push(entry);
    }
    return seen;
  }

  it('runs a tool as a task to its result, and lists and cancels tasks', async () => {
    const peer = await connect();
    try {
      expect(peer.client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
      const seen = await stream(peer, 'slow', { ms: 120 });
      expect(seen[0]).toEqual({ type: 'taskCreated', status: 'working' });
      expect(seen.at(-1)).toMatchObject({ type: 'result', result: { content: [{ text: 'slept 120' }] } });
      expect(seen.filter((m) => m.type === 'taskStatus').at(-1)?.status).toBe('completed');

      const created = await peer.client.request(
        { method: 'tools/call', params: { name: 'slow', arguments: { ms: 5_000 }, task: {} } },
        CreateTaskResultSchema,
      );
      const listed = await peer.client.experimental.tasks.listTasks();
      expect(listed.tasks.map((task) => task.taskId)).toContain(created.task.taskId);
      const cancelled = await peer.client.experimental.tasks.cancelTask(created.task.taskId);
      expect(cancelled.status).toBe('cancelled');
      expect(peer.recorder.problems()).toEqual([]);
    } finally {
      await peer.client.close();
    }
  });

  // The SDK keeps a GET stream open, so the question goes there at once, before a poll could see input_required.
  it('answers a question of the task, sent with the related task, then gets the result', async () => {
    const peer = await connect();
    try {
      const seen = await stream(peer, 'asks', {});
      expect(seen.at(-1)).toMatchObject({ type: 'result', result: { content: [{ text: 'yes' }] } });
      expect(peer.elicitations).toEqual([expect.objectContaining({ message: 'Sure?' })]);
      const related = (peer.elicitations[0] as { _meta?: Record<string, unknown> })._meta?.[META_RELATED_TASK];
      expect(related).toEqual({ taskId: expect.any(String) });
      expect(peer.recorder.problems()).toEqual([]);
    } finally {
      await peer.client.close();
    }
  });
});

// An independent requester: @modelcontextprotocol/ext-tasks (ESM only, so a child process) over the SDK 2.x client.
describe('tasks in revision 2025-11-25 with @modelcontextprotocol/ext-tasks as the requester', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await createHttpApp(HttpModule, 'express');
    await app.listen(0, '127.0.0.1');
    url = `${await app.getUrl()}/mcp`;
  });

  afterAll(() => app.close());

  async function peer(scenario: string): Promise<Record<string, unknown>> {
    const script = join(__dirname, '..', 'support', 'ext-tasks-peer.mjs');
    const { stdout } = await run(process.execPath, [script, url, scenario], {
      env: scrubbedEnv(),
      timeout: 20_000,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  }

  it('sees the v1 task capabilities and runs a tool as a task to its result, listed and readable', async () => {
    expect(await peer('complete')).toEqual({
      scenario: 'complete',
      capabilities: expect.objectContaining({ inventory: 'server-list', cancellation: true, execution: true }),
      kind: 'task',
      statuses: expect.arrayContaining(['completed']),
      text: 'slept 150',
      snapshot: 'completed',
      listed: true,
    });
  });

  it('answers the question of a task through its input handler', async () => {
    expect(await peer('input')).toMatchObject({ text: 'yes', questions: [{ kind: 'elicitation', message: 'Sure?' }] });
  });

  it('cancels a running task', async () => {
    expect(await peer('cancel')).toMatchObject({ outcome: 'cancelled' });
  });

  it('sees a task that failed with a JSON-RPC error as failed', async () => {
    expect(await peer('failed')).toMatchObject({ outcome: 'failed' });
  });
});

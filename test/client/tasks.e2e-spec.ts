// The client's task calls (callToolAsTask, awaitTask, cancelTask, listTasks) against this repository's server, in
// both eras: the tasks extension (2026-07-28) over HTTP, and the tasks of 2025-11-25 over stateful HTTP and stdio.
import { INestApplication } from '@nestjs/common';
import { CallToolResult, Era } from '@conduit-mcp/core';
import { McpClient } from '../../libs/client/src/connection/mcp-client';
import { McpTaskInfo } from '../../libs/client/src/connection/mcp-task.types';
import {
  McpInputMethod,
  McpInputResponder,
  McpInputSituation,
} from '../../libs/client/src/connection/input-responder.interface';
import { McpClientError } from '../../libs/client/src/errors/mcp-client.error';
import { McpTaskCancelledError, McpTaskFailedError } from '../../libs/client/src/errors/mcp-task.error';
import { McpServerTransportConfig } from '../../libs/client/src/interfaces/mcp-client-options.interface';
import { createClientTransport } from '../../libs/client/src/transports/client-transport.factory';
import { createHttpApp } from '../support/http-adapters';
import { roundsModule } from '../support/rounds-fixture';
import { QUOTA_ERROR, tasksModule } from '../support/tasks-fixture';
import { TASKS_STDIO } from '../support/tasks-fixture.stdio';

// The stdio server runs on ts-node; the expiry cases wait past a ttl of 1 s.
jest.setTimeout(60_000);

/** Answers every elicitation (a name for `staged`, a confirmation otherwise) and records what it was asked. */
class Answers implements McpInputResponder {
  readonly asked: Array<{ method: McpInputMethod; message: string; situation: McpInputSituation }> = [];

  capabilities() {
    return { elicitation: { form: {} } };
  }

  async answer(method: McpInputMethod, params: Record<string, unknown>, situation: McpInputSituation) {
    const message = String(params.message);
    this.asked.push({ method, message, situation });
    return message === 'Your name?'
      ? { action: 'accept', content: { name: 'Alice' } }
      : { action: 'accept', content: { confirm: true } };
  }

  notify(): void {}
}

const text = (result: CallToolResult) => (result.content[0] as { text?: string } | undefined)?.text;

/** Connects clients to a server and closes them after each test. */
function clients(transport: () => McpServerTransportConfig, era: Era) {
  const open: McpClient[] = [];
  afterEach(async () => void (await Promise.all(open.splice(0).map((client) => client.close()))));
  return (answers = new Answers()) => {
    const client = new McpClient(
      { id: 'tasks', transport: transport(), era },
      { name: 'tasks-client', servers: [], requestTimeoutMs: 10_000 },
      answers,
      createClientTransport,
    );
    open.push(client);
    return client;
  };
}

/** The task of a start that must be one. */
function taskOf(start: { task: McpTaskInfo } | { result: CallToolResult }): McpTaskInfo {
  if (!('task' in start)) throw new Error(`expected a task, got the result ${JSON.stringify(start.result)}`);
  return start.task;
}

async function listen(port: number | undefined, module: unknown): Promise<{ app: INestApplication; url: string }> {
  const app = await createHttpApp(module, 'express');
  await app.listen(port ?? 0, '127.0.0.1');
  return { app, url: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp` };
}

describe('McpClient tasks, modern era (the tasks extension) over HTTP', () => {
  let server: { app: INestApplication; url: string };
  let shortLived: { app: INestApplication; url: string };

  beforeAll(async () => {
    server = await listen(undefined, tasksModule({ path: '/mcp' }));
    shortLived = await listen(
      undefined,
      tasksModule({ path: '/mcp' }, { defaultTtlMs: 1_000, maxTtlMs: 1_000, pollIntervalMs: 50 }),
    );
  });
  afterAll(async () => {
    await server?.app.close();
    await shortLived?.app.close();
  });

  const client = clients(() => ({ type: 'http', url: server.url }), 'modern');
  const shortLivedClient = clients(() => ({ type: 'http', url: shortLived.url }), 'modern');

  it('starts a task (ttlMs and pollIntervalMs in the neutral spelling) and awaits its result', async () => {
    const tasks = client();
    const task = taskOf(await tasks.callToolAsTask('slow', { ms: 100 }));
    expect(task).toEqual({
      taskId: expect.any(String),
      status: 'working',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      lastUpdatedAt: expect.any(String),
      ttlMs: 3_600_000,
      pollIntervalMs: 50,
    });
    expect(text(await tasks.awaitTask(task.taskId))).toBe('slept 100');
  });

  it('answers a question inside the task once, through tasks/update; onStatus sees each status once', async () => {
    const answers = new Answers();
    const tasks = client(answers);
    const task = taskOf(await tasks.callToolAsTask('confirm', { file: 'notes.txt' }));
    const statuses: string[] = [];
    const result = await tasks.awaitTask(task.taskId, { onStatus: (seen) => statuses.push(seen.status) });
    expect(text(result)).toBe('deleted notes.txt');
    expect(answers.asked.map((asked) => asked.message)).toEqual(['Delete notes.txt?']);
    expect(answers.asked[0].situation).toMatchObject({ era: 'modern', relatedRequestId: undefined });
    expect(statuses).toEqual(['working', 'input_required', 'working', 'completed']);
  });

  it('answers the input rounds before the task, then awaits the task', async () => {
    const answers = new Answers();
    const tasks = client(answers);
    const task = taskOf(await tasks.callToolAsTask('staged'));
    expect(answers.asked.map((asked) => asked.message)).toEqual(['Your name?']);
    expect(text(await tasks.awaitTask(task.taskId))).toBe('Hello, Alice!');
  });

  it('resolves a tool error as the result (isError), the task being completed', async () => {
    const tasks = client();
    const task = taskOf(await tasks.callToolAsTask('tool_error'));
    const statuses: string[] = [];
    const result = await tasks.awaitTask(task.taskId, { onStatus: (seen) => statuses.push(seen.status) });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'disk full' }] });
    expect(statuses.at(-1)).toBe('completed');
  });

  it('rejects a task that ended in a JSON-RPC error with McpTaskFailedError, its code and data', async () => {
    const tasks = client();
    const task = taskOf(await tasks.callToolAsTask('breaks'));
    const error = await tasks.awaitTask(task.taskId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpTaskFailedError);
    expect(error).toMatchObject({
      kind: 'rpc',
      taskId: task.taskId,
      code: QUOTA_ERROR.code,
      data: QUOTA_ERROR.data,
      message: `Task ${task.taskId} failed: ${QUOTA_ERROR.message}`,
    });
  });

  it('cancelTask while it runs: acknowledged (undefined), and awaitTask rejects McpTaskCancelledError', async () => {
    const tasks = client();
    const task = taskOf(await tasks.callToolAsTask('slow', { ms: 30_000 }));
    const waiting = tasks.awaitTask(task.taskId);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(tasks.cancelTask(task.taskId)).resolves.toBeUndefined();
    await expect(waiting).rejects.toBeInstanceOf(McpTaskCancelledError);
    // The extension acknowledges a task that already ended alike.
    await expect(tasks.cancelTask(task.taskId)).resolves.toBeUndefined();
  });

  it('rejects an expired task as unknown (-32602) once its ttl has passed', async () => {
    const tasks = shortLivedClient();
    const task = taskOf(await tasks.callToolAsTask('slow', { ms: 10_000 }));
    expect(task.ttlMs).toBe(1_000);
    const error = await tasks.awaitTask(task.taskId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpClientError);
    expect(error).toMatchObject({ kind: 'rpc', code: -32602 });
    expect((error as Error).message).toMatch(/is unknown to the server: it expired \(its ttl passed\)/);
    await expect(tasks.cancelTask('no-such-task')).rejects.toMatchObject({ code: -32602 });
  });

  it('a plain callTool of an optional task tool is no task; callToolAsTask of a plain tool answers inline', async () => {
    const tasks = client();
    const plain = await tasks.callTool('slow', { ms: 1 });
    expect(plain).toMatchObject({ content: [{ type: 'text', text: 'slept 1' }] });
    expect(plain).not.toHaveProperty('taskId');
    const inline = await tasks.callToolAsTask('quick');
    expect(inline).toEqual({ result: expect.objectContaining({ content: [{ type: 'text', text: 'quick' }] }) });
  });

  it('signal abort stops awaiting, not the task: awaiting it again still gets its result', async () => {
    const tasks = client();
    const task = taskOf(await tasks.callToolAsTask('slow', { ms: 600 }));
    const controller = new AbortController();
    const waiting = tasks.awaitTask(task.taskId, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(waiting).rejects.toMatchObject({ kind: 'cancelled', message: expect.stringMatching(/goes on/) });
    await expect(tasks.awaitTask(task.taskId, { timeout: 20 })).rejects.toMatchObject({ kind: 'timeout' });
    expect(text(await tasks.awaitTask(task.taskId))).toBe('slept 600');
  });

  it('refuses listTasks: the extension has no list', async () => {
    await expect(client().listTasks()).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringMatching(/^tasks\/list is part of the legacy era only/),
    });
  });
});

const STDIO: McpServerTransportConfig = { type: 'stdio', ...TASKS_STDIO };

// Stateful HTTP: a legacy session is what a task belongs to (stateless legacy HTTP offers no tasks).
// One client (one session, one stdio server) for the whole block: each test starts tasks of its own.
describe.each(['http', 'stdio'] as const)('McpClient tasks, legacy era (2025-11-25) over %s', (kind) => {
  let server: { app: INestApplication; url: string } | undefined;
  const answers = new Answers();
  let tasks: McpClient;

  beforeAll(async () => {
    if (kind === 'http') server = await listen(undefined, tasksModule({ path: '/mcp' }));
    tasks = new McpClient(
      { id: 'tasks', transport: kind === 'http' ? { type: 'http', url: server!.url } : STDIO, era: 'legacy' },
      { name: 'tasks-client', servers: [], requestTimeoutMs: 10_000 },
      answers,
      createClientTransport,
    );
    await tasks.connect();
  });
  afterAll(async () => {
    await tasks?.close();
    await server?.app.close();
  });
  beforeEach(() => void (answers.asked.length = 0));

  it('is offered tasks by the server, starts one with the ttl it asks for, and awaits its result', async () => {
    expect(tasks.protocolVersion).toBe('2025-11-25');
    expect(tasks.serverCapabilities.tasks).toMatchObject({ cancel: {}, requests: { tools: { call: {} } } });
    const task = taskOf(await tasks.callToolAsTask('slow', { ms: 100 }, { ttlMs: 120_000 }));
    expect(task).toMatchObject({ status: 'working', ttlMs: 120_000, pollIntervalMs: 50 });
    const result = await tasks.awaitTask(task.taskId);
    expect(text(result)).toBe('slept 100');
    expect(result._meta).toMatchObject({ 'io.modelcontextprotocol/related-task': { taskId: task.taskId } });
  });

  it('answers the task’s question on its tasks/result call, once; onStatus sees each status once', async () => {
    const task = taskOf(await tasks.callToolAsTask('confirm', { file: 'notes.txt' }));
    const statuses: string[] = [];
    const result = await tasks.awaitTask(task.taskId, {
      onStatus: (seen) => statuses.push(seen.status),
      assigns: { user: 'u1' },
    });
    expect(text(result)).toBe('deleted notes.txt');
    expect(answers.asked).toHaveLength(1);
    // Tied to the tasks/result call: its assigns, and a call in flight (sampling would not be refused as idle).
    expect(answers.asked[0].situation).toMatchObject({
      era: 'legacy',
      assigns: { user: 'u1' },
      relatedRequestId: expect.anything(),
    });
    expect(answers.asked[0].situation.callsInFlight).toBeGreaterThanOrEqual(1);
    expect(statuses).toEqual(['working', 'input_required', 'working', 'completed']);
  });

  it('resolves a tool error as the result (isError), the task being failed', async () => {
    const task = taskOf(await tasks.callToolAsTask('tool_error'));
    const statuses: string[] = [];
    const result = await tasks.awaitTask(task.taskId, { onStatus: (seen) => statuses.push(seen.status) });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'disk full' }] });
    expect(statuses.at(-1)).toBe('failed');
  });

  it('rejects a task that ended in a JSON-RPC error with McpTaskFailedError, its code and data', async () => {
    const task = taskOf(await tasks.callToolAsTask('breaks'));
    const error = await tasks.awaitTask(task.taskId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpTaskFailedError);
    expect(error).toMatchObject({ code: QUOTA_ERROR.code, data: QUOTA_ERROR.data });
  });

  it('cancelTask resolves the cancelled task, awaitTask rejects McpTaskCancelledError; a second cancel is refused', async () => {
    const task = taskOf(await tasks.callToolAsTask('slow', { ms: 30_000 }));
    const waiting = tasks.awaitTask(task.taskId);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(tasks.cancelTask(task.taskId)).resolves.toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    await expect(waiting).rejects.toBeInstanceOf(McpTaskCancelledError);
    await expect(tasks.cancelTask(task.taskId)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/cannot be cancelled: it already ended/),
    });
  });

  it('signal abort stops awaiting (its tasks/result cancelled), not the task: awaiting it again gets its result', async () => {
    const task = taskOf(await tasks.callToolAsTask('slow', { ms: 600 }));
    const controller = new AbortController();
    const waiting = tasks.awaitTask(task.taskId, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(waiting).rejects.toMatchObject({ kind: 'cancelled', message: expect.stringMatching(/goes on/) });
    expect(text(await tasks.awaitTask(task.taskId))).toBe('slept 600');
  });

  it('lists the tasks of this session', async () => {
    const started = await Promise.all([1, 2, 3].map((ms) => tasks.callToolAsTask('slow', { ms })));
    const ids = started.map((start) => taskOf(start).taskId);
    const listed = await tasks.listTasks();
    expect(listed.map((task) => task.taskId)).toEqual(expect.arrayContaining(ids));
    expect(listed[0]).toEqual(expect.objectContaining({ status: expect.any(String), ttlMs: expect.any(Number) }));
    await Promise.all(ids.map((id) => tasks.awaitTask(id)));
  });

  it('rejects an expired task as unknown (-32602) once the ttl it asked for has passed', async () => {
    const task = taskOf(await tasks.callToolAsTask('slow', { ms: 10_000 }, { ttlMs: 1_000 }));
    expect(task.ttlMs).toBe(1_000);
    await expect(tasks.awaitTask(task.taskId)).rejects.toMatchObject({
      kind: 'rpc',
      code: -32602,
      message: expect.stringMatching(/is unknown to the server/),
    });
  });

  it('a plain callTool of an optional task tool is no task; a plain tool is refused as a task', async () => {
    expect(await tasks.callTool('slow', { ms: 1 })).toMatchObject({ content: [{ type: 'text', text: 'slept 1' }] });
    await expect(tasks.callToolAsTask('quick')).rejects.toMatchObject({
      kind: 'rpc',
      code: -32601,
      message: expect.stringMatching(/does not run quick as a task/),
    });
  });
});

describe('McpClient tasks, legacy era, against a server that offers none', () => {
  let server: { app: INestApplication; url: string };

  beforeAll(async () => {
    server = await listen(undefined, roundsModule({ path: '/mcp' }));
  });
  afterAll(async () => {
    await server?.app.close();
  });

  const client = clients(() => ({ type: 'http', url: server.url }), 'legacy');

  it('refuses to start, cancel or list tasks, naming the capability the server lacks', async () => {
    const tasks = client();
    await expect(tasks.callToolAsTask('count_slowly', { to: 1 })).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringMatching(
        /^The server does not run tools as tasks \(its capabilities have no tasks\.requests\.tools\.call/,
      ),
    });
    await expect(tasks.cancelTask('t-1')).rejects.toMatchObject({ message: expect.stringMatching(/no tasks\.cancel/) });
    await expect(tasks.listTasks()).rejects.toMatchObject({ message: expect.stringMatching(/no tasks\.list/) });
  });
});

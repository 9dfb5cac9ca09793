// Tasks in the modern era (the io.modelcontextprotocol/tasks extension), over Streamable HTTP with raw fetch: each
// message checked against the 2026-07-28 schema and the extension's.
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { ErrorCode, McpError, TASKS_EXTENSION_ID } from '@conduit-mcp/core';
import { McpArgs, McpCtx, McpModule, McpRequestContext, McpTool } from '@conduit-mcp/server';
import { pause } from '../support/abortable-pause';
import { HTTP_ADAPTERS, createHttpApp } from '../support/http-adapters';
import { WireSchema } from '../support/wire-schema';

const MODERN = '2026-07-28';
const TASKS = { extensions: { [TASKS_EXTENSION_ID]: {} }, elicitation: {} };
const wire = WireSchema.for(MODERN);

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
      await pause(ms, ctx.signal);
    } catch (error) {
      Jobs.aborted++;
      throw error;
    }
    return `slept ${ms}`;
  }

  @McpTool({ name: 'must_task', task: 'required' })
  mustTask() {
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

@Injectable()
class Staged {
  static aborted = 0;

  // Asks a name as an ordinary input round, then becomes a task; in the task it asks again and waits.
  @McpTool({ name: 'staged', task: 'required', taskStart: 'handler' })
  async staged(@McpCtx() ctx: McpRequestContext) {
    const { signal } = ctx; // the request's signal, held from before the task: the task's cancel aborts it too
    const who = await ctx.input.elicit('name', {
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    await ctx.runAsTask();
    const go = await ctx.input.elicit('go', {
      message: 'Go?',
      requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] },
    });
    try {
      await pause(go.content?.go === true ? 10 : 60_000, signal);
    } catch (error) {
      Staged.aborted++;
      throw error;
    }
    return `Hello, ${String(who.content?.name)}!`;
  }

  @McpTool({ name: 'maybe_staged', task: 'optional', taskStart: 'handler' })
  async maybeStaged(@McpCtx() ctx: McpRequestContext) {
    await ctx.runAsTask(); // nothing to do for a request without the extension: the call stays inline
    return 'done';
  }
}

@Module({
  imports: [
    McpModule.forRoot({ name: 'tasks-e2e', version: '1', http: { path: '/mcp' }, tasks: { pollIntervalMs: 50 } }),
  ],
  providers: [Jobs, Staged],
})
class TasksModule {}

describe.each(HTTP_ADAPTERS)('tasks, modern era (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await createHttpApp(TasksModule, adapter);
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
  });
  afterAll(() => app?.close());

  let nextId = 1;
  async function rpc(method: string, params: Record<string, unknown>, capabilities: object = TASKS, name?: string) {
    const id = nextId++;
    const body = {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-e2e', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
    };
    const named = name ?? (typeof params.name === 'string' ? params.name : (params.taskId as string | undefined));
    if (named !== undefined) headers['mcp-name'] = named;
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    const message = (await response.json()) as {
      result?: Record<string, unknown>;
      error?: { code: number; data?: unknown };
    };
    expect(wire.check(message as Record<string, unknown>, method)).toEqual([]);
    return { status: response.status, ...message };
  }

  async function until(taskId: string, status: string) {
    for (let n = 0; n < 200; n++) {
      const { result } = await rpc('tasks/get', { taskId });
      if (result?.status === status) return result;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`task ${taskId} never reached ${status}`);
  }

  it('advertises the extension in server/discover, never a tasks capability', async () => {
    const { result } = await rpc('server/discover', {});
    const capabilities = result!.capabilities as Record<string, unknown>;
    expect(capabilities.extensions).toEqual({ [TASKS_EXTENSION_ID]: {} });
    expect(capabilities.tasks).toBeUndefined();
  });

  it('runs an optional tool as a task for a request that declares the extension, inline for one that does not', async () => {
    const inline = await rpc('tools/call', { name: 'slow', arguments: { ms: 1 } }, {});
    expect(inline.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'slept 1' }] });

    const created = await rpc('tools/call', { name: 'slow', arguments: { ms: 50 } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 50 });
    expect(created.result).not.toHaveProperty('task');
    expect(created.result!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    const taskId = created.result!.taskId as string;
    expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ resultType: 'complete', taskId });
    const done = await until(taskId, 'completed');
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'slept 50' }] });
  });

  it('checks the arguments before making a task: invalid ones are a tool error at once', async () => {
    const { result } = await rpc('tools/call', { name: 'slow', arguments: { ms: 'long' } });
    expect(result).toMatchObject({ resultType: 'complete', isError: true });
    expect(result).not.toHaveProperty('taskId');
  });

  it('refuses a required-task tool to a request without the extension (-32021, HTTP 400), and runs it as a task otherwise', async () => {
    const refused = await rpc('tools/call', { name: 'must_task', arguments: {} }, {});
    expect(refused.status).toBe(400);
    expect(refused.error).toMatchObject({
      code: ErrorCode.MissingRequiredClientCapability,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
    });
    const created = await rpc('tools/call', { name: 'must_task', arguments: {} });
    // A tool error is a completed task in the extension.
    const done = await until(created.result!.taskId as string, 'completed');
    expect(done.result).toMatchObject({ isError: true });
  });

  it('records a JSON-RPC error as a failed task', async () => {
    const created = await rpc('tools/call', { name: 'breaks', arguments: {} });
    const failed = await until(created.result!.taskId as string, 'failed');
    expect(failed.error).toEqual({ code: ErrorCode.InternalError, message: 'broken on purpose' });
    expect(failed).not.toHaveProperty('result');
  });

  it('asks through tasks/get and takes the answer through tasks/update', async () => {
    const created = await rpc('tools/call', { name: 'asks', arguments: {} });
    const taskId = created.result!.taskId as string;
    const waiting = await until(taskId, 'input_required');
    expect(Object.keys(waiting.inputRequests as object)).toEqual(['confirm']);
    const ack = await rpc('tasks/update', {
      taskId,
      inputResponses: { unknown: { ignored: true }, confirm: { action: 'accept', content: { confirm: true } } },
    });
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect((await until(taskId, 'completed')).result).toEqual({ content: [{ type: 'text', text: 'yes' }] });
  });

  it('cancels: acknowledged empty, the handler aborted, cancelled at once; a terminal task acknowledged alike', async () => {
    const aborted = Jobs.aborted;
    const created = await rpc('tools/call', { name: 'slow', arguments: { ms: 60_000 } });
    const taskId = created.result!.taskId as string;
    const ack = await rpc('tasks/cancel', { taskId });
    expect(ack.result).not.toHaveProperty('status');
    expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
    expect(Jobs.aborted).toBe(aborted + 1);
    expect((await rpc('tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
  });

  it('gates the tasks methods: -32021 without the extension, -32602 for an unknown task, -32601 for the removed ones', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const { error } = await rpc(method, { taskId: 'gate', inputResponses: {} }, {});
      expect(error?.code).toBe(ErrorCode.MissingRequiredClientCapability);
    }
    expect((await rpc('tasks/get', { taskId: 'no-such-task' })).error?.code).toBe(ErrorCode.InvalidParams);
    for (const method of ['tasks/result', 'tasks/list'])
      expect((await rpc(method, { taskId: 'x' }, TASKS, 'x')).error?.code).toBe(ErrorCode.MethodNotFound);
  });

  it('checks Mcp-Name against the task id (-32020)', async () => {
    const created = await rpc('tools/call', { name: 'slow', arguments: { ms: 10 } });
    const { error } = await rpc('tasks/get', { taskId: created.result!.taskId }, TASKS, 'another-task');
    expect(error?.code).toBe(ErrorCode.HeaderMismatch);
  });

  describe("a tool that starts its task itself (taskStart: 'handler')", () => {
    async function toTask() {
      const first = await rpc('tools/call', { name: 'staged', arguments: {} });
      expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { name: expect.any(Object) } });
      expect(first.result).not.toHaveProperty('taskId');
      const second = await rpc('tools/call', {
        name: 'staged',
        arguments: {},
        inputResponses: { name: { action: 'accept', content: { name: 'Alice' } } },
        requestState: first.result!.requestState,
      });
      expect(second.result).toMatchObject({ resultType: 'task', status: 'working' });
      expect(second.result).not.toHaveProperty('requestState');
      expect(second.result).not.toHaveProperty('inputRequests');
      return second.result!.taskId as string;
    }

    it('asks in input rounds first, then answers with the task; its later questions go through tasks/update', async () => {
      const taskId = await toTask();
      const waiting = await until(taskId, 'input_required');
      expect(Object.keys(waiting.inputRequests as object)).toEqual(['go']);
      await rpc('tasks/update', { taskId, inputResponses: { go: { action: 'accept', content: { go: true } } } });
      expect((await until(taskId, 'completed')).result).toEqual({ content: [{ type: 'text', text: 'Hello, Alice!' }] });
    });

    it('stays an ordinary call for a request without the extension: runAsTask does nothing', async () => {
      const { result } = await rpc('tools/call', { name: 'maybe_staged', arguments: {} }, {});
      expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'done' }] });
      const tasked = await rpc('tools/call', { name: 'maybe_staged', arguments: {} });
      expect(tasked.result).toMatchObject({ resultType: 'task' });
      expect((await until(tasked.result!.taskId as string, 'completed')).result).toMatchObject({
        content: [{ type: 'text', text: 'done' }],
      });
    });

    it('aborts the signal the handler held from before the task when the task is cancelled', async () => {
      const aborted = Staged.aborted;
      const taskId = await toTask();
      await until(taskId, 'input_required');
      await rpc('tasks/update', { taskId, inputResponses: { go: { action: 'accept', content: { go: false } } } });
      await until(taskId, 'working');
      await rpc('tasks/cancel', { taskId });
      for (let n = 0; n < 100 && Staged.aborted === aborted; n++) await new Promise((r) => setTimeout(r, 10));
      expect(Staged.aborted).toBe(aborted + 1);
      expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
    });
  });

  /** Opens subscriptions/listen; collects its messages as they arrive, each checked against the schemas. */
  async function listen(notifications: Record<string, unknown>, capabilities: object = TASKS) {
    const controller = new AbortController();
    const body = {
      jsonrpc: '2.0',
      id: `listen-${nextId++}`,
      method: 'subscriptions/listen',
      params: {
        notifications,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-e2e', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    };
    const response = await fetch(url, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify(body),
    });
    const messages: Array<Record<string, unknown>> = [];
    if (response.headers.get('content-type')?.includes('application/json')) {
      messages.push((await response.json()) as Record<string, unknown>);
      return { status: response.status, messages, close: () => undefined };
    }
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buffered += decoder.decode(value, { stream: true });
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines.filter((l) => l.startsWith('data: ') && l.length > 6)) {
          const message = JSON.parse(line.slice(6)) as Record<string, unknown>;
          expect(wire.check(message, 'subscriptions/listen')).toEqual([]);
          messages.push(message);
        }
      }
    })();
    return { status: response.status, messages, close: () => controller.abort() };
  }

  async function arrived(messages: Array<Record<string, unknown>>, match: (m: Record<string, unknown>) => boolean) {
    for (let n = 0; n < 200 && !messages.some(match); n++) await new Promise((resolve) => setTimeout(resolve, 10));
    return messages.find(match);
  }

  it('tells a subscriptions/listen stream that follows a task of each change of its status (notifications/tasks)', async () => {
    const created = await rpc('tools/call', { name: 'asks', arguments: {} });
    const taskId = created.result!.taskId as string;
    await until(taskId, 'input_required');
    const stream = await listen({ taskIds: [taskId, 'no-such-task'] });
    try {
      const ack = await arrived(stream.messages, (m) => m.method === 'notifications/subscriptions/acknowledged');
      expect((ack!.params as { notifications: unknown }).notifications).toEqual({ taskIds: [taskId] });
      await rpc('tasks/update', {
        taskId,
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      });
      const completed = await arrived(
        stream.messages,
        (m) => m.method === 'notifications/tasks' && (m.params as { status?: string }).status === 'completed',
      );
      expect(completed!.params).toMatchObject({ taskId, status: 'completed', result: { content: [{ text: 'yes' }] } });
      const statuses = stream.messages
        .filter((m) => m.method === 'notifications/tasks')
        .map((m) => (m.params as { status: string }).status);
      expect(statuses).toEqual(['working', 'completed']);
    } finally {
      stream.close();
    }
  });

  it('refuses taskIds on a stream whose request did not declare the extension (-32021)', async () => {
    const refused = await listen({ taskIds: ['x'] }, {});
    expect(refused.messages[0]).toMatchObject({ error: { code: ErrorCode.MissingRequiredClientCapability } });
  });

  it('ignores the legacy task parameter of a plain tool', async () => {
    const { result } = await rpc('tools/call', { name: 'quick', arguments: {}, task: { ttl: 60_000 } });
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'quick' }] });
  });
});

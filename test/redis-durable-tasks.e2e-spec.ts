// Durable tasks (`@McpTool({ durable: true })`) across processes, in one test process: two instances of one server
// (A and B, each a Nest HTTP app with its own Redis connections) and a worker (a Nest application context of the same
// module, no HTTP, running McpTaskWorker), sharing a real Redis under a key prefix of this run. A modern client (raw
// fetch, the tasks extension declared) creates a task on A and follows it on B; the handler runs on the worker.
import {
  CanActivate,
  ExecutionContext,
  INestApplication,
  INestApplicationContext,
  Inject,
  Injectable,
  Module,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ErrorCode, TASKS_EXTENSION_ID } from '@conduit-mcp/core';
import {
  McpArgs,
  McpAuthenticator,
  McpContextType,
  McpCtx,
  McpExecutionContext,
  McpModule,
  McpRequestContext,
  McpTool,
  TransportFacts,
} from '@conduit-mcp/server';
import { McpRedis, McpRedisModule, McpTaskWorker } from '@conduit-mcp/redis';
import { deleteKeys, testPrefix, testRedis } from '../libs/redis/src/redis-test.fixtures-spec';
import { createHttpApp } from './support/http-adapters';
import { until as within } from './support/legacy-http.client';
import { WireSchema } from './support/wire-schema';

const MODERN = '2026-07-28';
const SERVER = 'durable';
const TASKS = { extensions: { [TASKS_EXTENSION_ID]: {} }, elicitation: {} };
const wire = WireSchema.for(MODERN);

/** Which process a handler ran in: 'A', 'B' or 'worker'. */
const ROLE = Symbol('ROLE');

/** What the handlers did, by process: in one test process they share these. */
const seen = {
  runs: [] as string[],
  aborted: [] as string[],
  started: new Set<string>(),
  gate: undefined as Promise<void> | undefined,
};

/** Lets only ada call `whoami` (a guard of the handler pipeline: it reads the call's auth, in the worker too). */
@Injectable()
class AdaOnly implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType<McpContextType>() !== 'mcp') return true;
    return McpExecutionContext.create(context).getContext().auth?.subject === 'ada';
  }
}

@Injectable()
class DurableTools {
  constructor(@Inject(ROLE) private readonly role: string) {}

  @McpTool({ name: 'whoami', task: 'required', durable: true })
  @UseGuards(AdaOnly)
  whoami(@McpCtx() ctx: McpRequestContext) {
    seen.runs.push(`whoami@${this.role}`);
    return `${String(ctx.auth?.subject)} on ${this.role} (token ${ctx.auth?.token === undefined ? 'kept back' : 'sent'})`;
  }

  @McpTool({
    name: 'report',
    task: 'optional',
    durable: true,
    input: { type: 'object', properties: { year: { type: 'integer' } }, required: ['year'] },
  })
  async report(@McpArgs() { year }: { year: number }, @McpCtx() ctx: McpRequestContext) {
    seen.runs.push(`report@${this.role}`);
    await seen.gate;
    const answer = await ctx.input.elicit('confirm', {
      message: `Build the ${year} report?`,
      requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] },
    });
    return answer.action === 'accept' && answer.content?.go === true ? `report ${year} built` : 'not built';
  }

  @McpTool({ name: 'wait', task: 'optional', durable: true })
  async wait(@McpCtx() ctx: McpRequestContext) {
    seen.started.add(this.role);
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    seen.aborted.push(`${this.role}: ${(ctx.signal.reason as Error).message}`);
    throw ctx.signal.reason;
  }

  @McpTool({ name: 'later', task: 'optional', durable: true })
  async later() {
    await seen.gate;
    seen.runs.push(`later@${this.role}`);
    return `done on ${this.role}`;
  }
}

/** The caller is named by the `x-user` header; the token is what a real authenticator would keep. */
const byHeader: McpAuthenticator = {
  authenticate(facts: TransportFacts) {
    const user = facts.headers['x-user'];
    if (typeof user !== 'string') return { ok: false, status: 401 };
    return { ok: true, auth: { subject: user, scopes: [], claims: { name: user }, token: `secret-of-${user}` } };
  },
};

function durableModule(keyPrefix: string, role: string) {
  @Module({
    imports: [
      McpRedisModule.forRoot({ keyPrefix }),
      McpModule.forRootAsync({
        inject: [McpRedis],
        useFactory: (redis: McpRedis) => ({
          name: SERVER,
          version: '1',
          http: { path: '/mcp', authenticator: byHeader },
          tasks: { pollIntervalMs: 50 },
          ...redis.state(SERVER),
        }),
      }),
    ],
    providers: [DurableTools, AdaOnly, { provide: ROLE, useValue: role }],
  })
  class DurableModule {}
  return DurableModule;
}

interface Instance {
  app: INestApplication;
  url: string;
}

async function instance(keyPrefix: string, role: string): Promise<Instance> {
  const app = await createHttpApp(durableModule(keyPrefix, role), 'express');
  await app.listen(0, '127.0.0.1');
  return { app, url: `${await app.getUrl()}/mcp` };
}

async function worker(keyPrefix: string): Promise<INestApplicationContext> {
  const context = await NestFactory.createApplicationContext(durableModule(keyPrefix, 'worker'), { logger: false });
  await context.get(McpTaskWorker).start(SERVER, { concurrency: 4 });
  return context;
}

let nextId = 1;
async function rpc(to: Instance, method: string, params: Record<string, unknown>, user = 'ada') {
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'durable-e2e', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': TASKS,
      },
    },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    'x-user': user,
  };
  const named = typeof params.name === 'string' ? params.name : (params.taskId as string | undefined);
  if (named !== undefined) headers['mcp-name'] = named;
  const response = await fetch(to.url, { method: 'POST', headers, body: JSON.stringify(body) });
  const message = (await response.json()) as { result?: Record<string, any>; error?: { code: number } };
  expect(wire.check(message as Record<string, unknown>, method)).toEqual([]);
  return message;
}

/** Polls tasks/get on `on` until the task reaches `status` (bounded). */
async function until(on: Instance, taskId: string, status: string, user = 'ada', ms = 15_000) {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    const { result } = await rpc(on, 'tasks/get', { taskId }, user);
    if (result?.status === status) return result;
    last = result;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`task ${taskId} never reached ${status} within ${ms} ms: ${JSON.stringify(last)}`);
}

async function created(on: Instance, name: string, args: Record<string, unknown> = {}, user = 'ada') {
  const { result, error } = await rpc(on, 'tools/call', { name, arguments: args }, user);
  expect(error).toBeUndefined();
  expect(result).toMatchObject({ resultType: 'task', status: 'working' });
  return result!.taskId as string;
}

/** Opens subscriptions/listen on `on`; collects the messages of its SSE stream as they arrive. */
async function listen(on: Instance, notifications: Record<string, unknown>) {
  const controller = new AbortController();
  const body = {
    jsonrpc: '2.0',
    id: `listen-${nextId++}`,
    method: 'subscriptions/listen',
    params: {
      notifications,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'durable-e2e', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': TASKS,
      },
    },
  };
  const response = await fetch(on.url, {
    method: 'POST',
    signal: controller.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'subscriptions/listen',
      'x-user': 'ada',
    },
    body: JSON.stringify(body),
  });
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const messages: Array<Record<string, any>> = [];
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
      for (const line of lines.filter((l) => l.startsWith('data: ') && l.length > 6))
        messages.push(JSON.parse(line.slice(6)) as Record<string, any>);
    }
  })();
  return { messages, close: () => controller.abort() };
}

/** Resolves with what `probe` finds, within 10 s (the worker's steps go through Redis). */
const eventually = <T>(what: string, probe: () => T | undefined): Promise<T> => within(what, probe, 10_000);

describe('durable tasks on Redis: instances A and B, a worker', () => {
  const keyPrefix = testPrefix('durable');
  const redis = testRedis();
  let a: Instance;
  let b: Instance;
  let work: INestApplicationContext | undefined;

  beforeAll(async () => {
    [a, b] = await Promise.all([instance(keyPrefix, 'A'), instance(keyPrefix, 'B')]);
    work = await worker(keyPrefix);
  });

  afterEach(() => {
    seen.runs = [];
    seen.aborted = [];
    seen.started.clear();
    seen.gate = undefined;
  });

  afterAll(async () => {
    await Promise.all([a?.app.close(), b?.app.close(), work?.close()]);
    await deleteKeys(redis, keyPrefix);
    await redis.quit();
  });

  it("runs a task created on A in the worker, through its guards, with the caller's auth (never the token); B follows it", async () => {
    const taskId = await created(a, 'whoami');
    const done = await until(b, taskId, 'completed');
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'ada on worker (token kept back)' }] });
    expect(seen.runs).toEqual(['whoami@worker']);

    // The guard runs in the worker too: bob's task fails with its refusal.
    const refused = await created(a, 'whoami', {}, 'bob');
    const failed = await until(b, refused, 'failed', 'bob');
    expect(failed.error).toMatchObject({ code: ErrorCode.ServerError });
    // Another caller's task is unknown to bob, and bob's to ada.
    expect((await rpc(b, 'tasks/get', { taskId }, 'bob')).error).toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it("publishes the worker's question on the task; tasks/update on B answers it", async () => {
    const taskId = await created(a, 'report', { year: 2026 });
    const asking = await until(b, taskId, 'input_required');
    expect(asking.inputRequests).toEqual({
      confirm: {
        method: 'elicitation/create',
        params: expect.objectContaining({ message: 'Build the 2026 report?', mode: 'form' }),
      },
    });
    // An answer that does not fit is refused on B, and the question stays.
    const invalid = await rpc(b, 'tasks/update', {
      taskId,
      inputResponses: { confirm: { action: 'accept', content: { go: 'yes' } } },
    });
    expect(invalid.error).toMatchObject({ code: ErrorCode.InvalidParams });
    const answered = await rpc(b, 'tasks/update', {
      taskId,
      inputResponses: { confirm: { action: 'accept', content: { go: true } } },
    });
    expect(answered.result).toMatchObject({ resultType: 'complete' });
    expect(answered.result).not.toHaveProperty('status');
    const done = await until(a, taskId, 'completed');
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'report 2026 built' }] });
    expect(seen.runs).toEqual(['report@worker']);
  });

  it("tells A's subscriptions/listen stream of each change the worker makes (notifications/tasks)", async () => {
    let open!: () => void;
    seen.gate = new Promise<void>((resolve) => (open = resolve));
    const taskId = await created(a, 'report', { year: 1999 });
    const stream = await listen(a, { taskIds: [taskId] });
    const statuses = () =>
      stream.messages.filter((m) => m.method === 'notifications/tasks').map((m) => m.params.status as string);
    try {
      await eventually('the acknowledgement', () =>
        stream.messages.find((m) => m.method === 'notifications/subscriptions/acknowledged'),
      );
      open();
      await eventually('input_required on A', () => (statuses().includes('input_required') ? true : undefined));
      const asking = stream.messages.find((m) => m.params?.status === 'input_required')!;
      expect(asking.params).toMatchObject({ taskId, inputRequests: { confirm: { method: 'elicitation/create' } } });
      await rpc(b, 'tasks/update', { taskId, inputResponses: { confirm: { action: 'decline' } } });
      await eventually('completed on A', () => (statuses().includes('completed') ? true : undefined));
      expect(stream.messages.find((m) => m.params?.status === 'completed')!.params).toMatchObject({
        taskId,
        result: { content: [{ type: 'text', text: 'not built' }] },
      });
      // Each notification shows the task as the store holds it when A hears of the change: a quick `working` may
      // already read as completed, and a terminal task is told once.
      expect(statuses()[0]).toBe('input_required');
      expect(statuses().filter((status) => status === 'completed')).toEqual(['completed']);
      expect(statuses().at(-1)).toBe('completed');
    } finally {
      stream.close();
    }
  });

  it('aborts the handler on the worker when the task is cancelled on B', async () => {
    const taskId = await created(a, 'wait');
    await eventually('the handler started', () => (seen.started.has('worker') ? true : undefined));
    const ack = await rpc(b, 'tasks/cancel', { taskId });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    expect(ack.result).not.toHaveProperty('status');
    expect((await rpc(a, 'tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
    await eventually('the handler was aborted', () => (seen.aborted.length ? true : undefined));
    expect(seen.aborted).toEqual(['worker: Task cancelled']);
    expect([...seen.started]).toEqual(['worker']);
  });

  it('completes a task whose instance closed after creating it, and one queued while no worker ran', async () => {
    const keyPrefixOwn = testPrefix('durable-restart');
    const first = await instance(keyPrefixOwn, 'first');
    const second = await instance(keyPrefixOwn, 'second');
    let own: INestApplicationContext | undefined;
    try {
      // No worker yet: the task waits in the queue; the instance that took it closes (shutting down fails only
      // the tasks running in it, and this one does not).
      let open!: () => void;
      seen.gate = new Promise<void>((resolve) => (open = resolve));
      const taskId = await created(first, 'later');
      await first.app.close();
      expect((await rpc(second, 'tasks/get', { taskId })).result).toMatchObject({ status: 'working' });
      own = await worker(keyPrefixOwn);
      open();
      const done = await until(second, taskId, 'completed');
      expect(done.result).toEqual({ content: [{ type: 'text', text: 'done on worker' }] });
      expect(seen.runs).toEqual(['later@worker']);
    } finally {
      await Promise.all([second.app.close(), own?.close(), first.app.close().catch(() => undefined)]);
      await deleteKeys(redis, keyPrefixOwn);
    }
  });
});

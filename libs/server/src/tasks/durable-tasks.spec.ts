import { CallToolResult, ErrorCode, SchemaValidator } from '@conduit-mcp/core';
import { InMemoryEventBus } from '../events/in-memory-event.bus';
import { McpBusEvent } from '../events/mcp-event.bus';
import { McpTelemetry } from '../telemetry/mcp.telemetry';
import { InMemoryTaskStore } from './in-memory-task.store';
import { DurableCall, McpTaskRunner, TaskLaunch } from './mcp-task.runner';
import { McpTaskJob, McpTaskQueue } from './task.queue';
import { TaskRecord } from './task.store';

// The task-queue seam of McpTaskRunner: durable tools' tasks queued instead of run, and the bus events that carry
// cancels, answers and status changes to and from the runner that runs a task elsewhere.

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const CONFIRM = {
  message: 'Go ahead?',
  requestedSchema: { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] },
};
const CALL: DurableCall = {
  protocolVersion: '2026-07-28',
  arguments: { year: 2026 },
  transport: 'streamable-http',
  clientInfo: { name: 'client', version: '1' },
  auth: { subject: 'alice', scopes: ['reports'], claims: { sub: 'alice' } },
};

class RecordingQueue implements McpTaskQueue {
  readonly jobs: McpTaskJob[] = [];
  failure: Error | undefined;

  async enqueue(job: McpTaskJob): Promise<void> {
    if (this.failure) throw this.failure;
    this.jobs.push(job);
  }
}

function setup(queue: McpTaskQueue | null = new RecordingQueue()) {
  const store = new InMemoryTaskStore();
  const bus = new InMemoryEventBus();
  const events: McpBusEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const runner = new McpTaskRunner(store, new SchemaValidator(), {}, new McpTelemetry(), bus, queue);
  runner.onModuleInit();
  const launch = (extra: Partial<TaskLaunch> = {}): TaskLaunch => ({
    owner: 'alice',
    server: 'spec',
    era: 'modern',
    tool: 'report',
    clientCapabilities: { elicitation: {} },
    run: jest.fn(async () => text('ran here')),
    ...extra,
  });
  const until = async (taskId: string, status: TaskRecord['status']) => {
    for (let n = 0; n < 200; n++) {
      const task = await store.get('alice', taskId);
      if (task?.status === status) return task;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`task ${taskId} never reached ${status}`);
  };
  return { store, bus, events, runner, launch, until, queue: queue as RecordingQueue };
}

// A second runner on the same store and bus: another instance, or a worker.
function peer(of: ReturnType<typeof setup>) {
  const runner = new McpTaskRunner(of.store, new SchemaValidator(), {}, new McpTelemetry(), of.bus, null);
  runner.onModuleInit();
  return runner;
}

describe('McpTaskRunner and a task queue', () => {
  it("queues a durable tool's task instead of running it: created in the store, the job carries the call", async () => {
    const { runner, launch, queue, store } = setup();
    const run = jest.fn();
    const task = (await runner.start(launch({ durable: CALL, run })))!;
    expect(task).toMatchObject({ status: 'working', tool: 'report', owner: 'alice' });
    expect(await store.get('alice', task.taskId)).toMatchObject({ status: 'working' });
    expect(queue.jobs).toEqual([
      {
        taskId: task.taskId,
        owner: 'alice',
        server: 'spec',
        tool: 'report',
        era: 'modern',
        protocolVersion: '2026-07-28',
        arguments: { year: 2026 },
        clientCapabilities: { elicitation: {} },
        clientInfo: { name: 'client', version: '1' },
        transport: 'streamable-http',
        auth: { subject: 'alice', scopes: ['reports'], claims: { sub: 'alice' } },
        createdAt: task.createdAt,
      },
    ]);
    expect(JSON.parse(JSON.stringify(queue.jobs[0]))).toEqual(queue.jobs[0]);
    expect(run).not.toHaveBeenCalled();
    // Not running here: this instance's shutdown leaves it to the worker.
    expect(runner.size).toBe(0);
    await runner.onApplicationShutdown();
    expect(await store.get('alice', task.taskId)).toMatchObject({ status: 'working' });
  });

  it('runs a durable task here when no queue is configured, and any other task here with one', async () => {
    const unqueued = setup(null);
    const durable = (await unqueued.runner.start(unqueued.launch({ durable: CALL })))!;
    expect((await unqueued.until(durable.taskId, 'completed')).result).toEqual(text('ran here'));

    const queued = setup();
    const plain = (await queued.runner.start(queued.launch()))!;
    expect((await queued.until(plain.taskId, 'completed')).result).toEqual(text('ran here'));
    expect(queued.queue.jobs).toEqual([]);
  });

  it('marks the task failed when the queue refuses it, and answers it so', async () => {
    const queue = new RecordingQueue();
    queue.failure = new Error('Redis is down');
    const { runner, launch, store } = setup(queue);
    const task = (await runner.start(launch({ durable: CALL })))!;
    const failure = { code: ErrorCode.InternalError, message: 'The task could not be queued for a worker' };
    expect(task).toMatchObject({ status: 'failed', error: failure });
    expect(await store.get('alice', task.taskId)).toMatchObject({ status: 'failed', error: failure });
  });

  it('cancels a task that runs elsewhere: cancelled in the store, then task-cancel on the bus', async () => {
    const { runner, launch, events, store, until } = setup();
    const statuses: string[] = [];
    const task = (await runner.start(launch({ durable: CALL, onStatus: (record) => statuses.push(record.status) })))!;
    expect(await runner.cancel('alice', task.taskId)).toMatchObject({ status: 'cancelled' });
    expect(await store.get('alice', task.taskId)).toMatchObject({ status: 'cancelled' });
    expect(events).toEqual([{ type: 'task-cancel', server: 'spec', taskId: task.taskId, owner: 'alice' }]);
    expect(statuses).toEqual(['cancelled']);
    // A terminal task stays as it is, and nothing is published for it.
    events.length = 0;
    const done = (await runner.start(launch()))!;
    await until(done.taskId, 'completed');
    expect(await runner.cancel('alice', done.taskId)).toMatchObject({ status: 'completed' });
    expect(events).toEqual([]);
  });

  it("passes answers to a task that runs elsewhere, checked against the store's questions", async () => {
    const { runner, events, store } = setup();
    const now = Date.now();
    const task: TaskRecord = {
      taskId: 'remote-task',
      owner: 'alice',
      server: 'spec',
      method: 'tools/call',
      era: 'modern',
      tool: 'report',
      status: 'input_required',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
      expiresAt: now + 60_000,
      inputRequests: { confirm: { method: 'elicitation/create', params: { ...CONFIRM, mode: 'form' } } },
    };
    await store.create(task);
    // An answer that does not fit: -32602, nothing passed on.
    await expect(
      runner.answer('alice', task.taskId, { confirm: { action: 'accept', content: { ok: 'yes' } } }),
    ).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    expect(events).toEqual([]);
    // Keys that are not outstanding (a prototype's name among them) are left out.
    const answer = { action: 'accept', content: { ok: true } };
    expect(await runner.answer('alice', task.taskId, { confirm: answer, other: 1, constructor: 2 })).toBe(true);
    expect(events).toEqual([
      { type: 'task-answers', server: 'spec', taskId: task.taskId, owner: 'alice', responses: { confirm: answer } },
    ]);
    // Another owner's task is unknown; a task that waits on nothing takes nothing.
    expect(await runner.answer('bob', task.taskId, { confirm: answer })).toBe(false);
    await store.update('alice', task.taskId, { status: 'working', inputRequests: undefined });
    events.length = 0;
    expect(await runner.answer('alice', task.taskId, { confirm: answer })).toBe(true);
    expect(events).toEqual([]);
  });

  it('refuses answers it cannot pass on (-32603), so that the client sends them again', async () => {
    const { runner, store, bus } = setup();
    const now = Date.now();
    await store.create({
      taskId: 'remote',
      owner: 'alice',
      server: 'spec',
      method: 'tools/call',
      era: 'modern',
      status: 'input_required',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
      expiresAt: now + 60_000,
      inputRequests: { q: { method: 'roots/list', params: {} } },
    });
    jest.spyOn(bus, 'publish').mockRejectedValueOnce(new Error('bus down'));
    await expect(runner.answer('alice', 'remote', { q: { roots: [] } })).rejects.toMatchObject({
      code: ErrorCode.InternalError,
      message: 'The answers could not be passed on to the task: send them again',
    });
  });

  it('applies the task-cancel and task-answers of another instance to a task running here', async () => {
    const here = setup(null);
    const elsewhere = peer(here);
    const asking = (await here.runner.start(
      here.launch({
        run: async ({ input }) => {
          const answer = await input.elicit('confirm', CONFIRM);
          return text(answer.action);
        },
      }),
    ))!;
    await here.until(asking.taskId, 'input_required');
    await elsewhere.answer('alice', asking.taskId, { confirm: { action: 'decline' } });
    expect((await here.until(asking.taskId, 'completed')).result).toEqual(text('decline'));

    let waitingSignal: AbortSignal | undefined;
    const waiting = (await here.runner.start(
      here.launch({
        run: ({ signal }) => {
          waitingSignal = signal;
          return new Promise((_, reject) => signal.addEventListener('abort', reject));
        },
      }),
    ))!;
    await elsewhere.cancel('alice', waiting.taskId);
    expect(waitingSignal!.aborted).toBe(true);
    expect((waitingSignal!.reason as Error).message).toBe('Task cancelled');
    expect(here.runner.size).toBe(0);
    expect(await here.store.get('alice', waiting.taskId)).toMatchObject({ status: 'cancelled' });
  });

  it('adopts a task made elsewhere (a worker), announces its changes, and fails it when its signal aborts', async () => {
    const origin = setup();
    const worker = peer(origin);
    const statuses: string[] = [];
    const queued = (await origin.runner.start(
      origin.launch({ durable: CALL, onStatus: (record) => statuses.push(`origin:${record.status}`) }),
    ))!;
    const record = (await origin.store.get('alice', queued.taskId))!;
    const stop = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const adopted = worker.adopt(
      record,
      origin.launch({
        onStatus: (task) => {
          statuses.push(`worker:${task.status}`);
          void origin.bus.publish({
            type: 'task-status',
            server: 'spec',
            taskId: task.taskId,
            owner: 'alice',
            status: task.status,
          });
        },
        run: ({ signal }) => {
          started();
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
        },
      }),
      stop.signal,
    );
    await running;
    expect(worker.size).toBe(1);
    stop.abort(new Error('The worker shut down before the task ended'));
    await adopted;
    expect(await origin.store.get('alice', queued.taskId)).toMatchObject({
      status: 'failed',
      error: { code: ErrorCode.InternalError, message: 'The worker shut down before the task ended' },
    });
    // The origin heard of it through the bus (task-status), read the store and told its listener.
    for (let n = 0; n < 50 && statuses.length < 2; n++) await new Promise((resolve) => setImmediate(resolve));
    expect(statuses).toEqual(['worker:failed', 'origin:failed']);
    // A terminal task is not adopted again.
    const run = jest.fn();
    await worker.adopt((await origin.store.get('alice', queued.taskId))!, origin.launch({ run }), stop.signal);
    expect(run).not.toHaveBeenCalled();
  });

  it("tells a queued task's listener once per state, and no more once it ended", async () => {
    const { runner, launch, store, bus } = setup();
    const told: string[] = [];
    const task = (await runner.start(launch({ durable: CALL, onStatus: (record) => told.push(record.status) })))!;
    const announce = () =>
      bus.publish({ type: 'task-status', server: 'spec', taskId: task.taskId, owner: 'alice', status: 'working' });
    await store.update('alice', task.taskId, { status: 'input_required' });
    await Promise.all([announce(), announce()]);
    for (let n = 0; n < 20 && told.length < 1; n++) await new Promise((resolve) => setImmediate(resolve));
    await store.update('alice', task.taskId, { status: 'completed', result: text('done') });
    await Promise.all([announce(), announce()]);
    for (let n = 0; n < 20 && told.length < 2; n++) await new Promise((resolve) => setImmediate(resolve));
    await announce();
    await new Promise((resolve) => setImmediate(resolve));
    expect(told).toEqual(['input_required', 'completed']);
    // Another owner's or server's event is not this task's.
    await bus.publish({ type: 'task-status', server: 'other', taskId: task.taskId, owner: 'alice', status: 'working' });
    expect(told).toHaveLength(2);
  });

  it('records the end of an adopted task as for one started here, by the era that created it', async () => {
    const origin = setup();
    const worker = peer(origin);
    const legacy = (await origin.runner.start(origin.launch({ era: 'legacy', durable: CALL })))!;
    await worker.adopt(
      (await origin.store.get('alice', legacy.taskId))!,
      origin.launch({ era: 'legacy', input: () => ({}) as never, run: async () => ({ ...text('no'), isError: true }) }),
      new AbortController().signal,
    );
    expect(await origin.store.get('alice', legacy.taskId)).toMatchObject({
      status: 'failed',
      result: { isError: true },
    });
  });
});

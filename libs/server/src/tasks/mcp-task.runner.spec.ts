import { CallToolResult, ErrorCode, McpError, SchemaValidator } from '@conduit-mcp/core';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { McpAbortedError } from '../errors/mcp-aborted.error';
import { MCP_CHANNELS, McpTaskEvent } from '../telemetry/mcp.channels';
import { InMemoryTaskStore } from './in-memory-task.store';
import { McpTaskLimits, McpTaskRunner, RunningTask, TaskLaunch } from './mcp-task.runner';
import { TaskRecord } from './task.store';

const CONFIRM = {
  message: 'Go ahead?',
  requestedSchema: { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] },
};
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** A promise settled from outside, to hold a handler where a test wants it. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => (open = resolve));
  return { open, opened };
}

function setup(limits?: McpTaskLimits, store = new InMemoryTaskStore()) {
  const runner = new McpTaskRunner(store, new SchemaValidator(), limits);
  const launch = (run: TaskLaunch['run'], extra: Partial<TaskLaunch> = {}): Promise<TaskRecord | undefined> =>
    runner.start({
      owner: 'alice',
      server: 'spec',
      era: 'modern',
      tool: 'job',
      clientCapabilities: { elicitation: {} },
      run,
      ...extra,
    });
  // Polls the store until the task reaches `status` (the handler runs detached from its launch).
  const until = async (taskId: string, status: TaskRecord['status'], owner = 'alice') => {
    for (let n = 0; n < 200; n++) {
      const task = await runner.get(owner, taskId);
      if (task?.status === status) return task;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`task ${taskId} never reached ${status}: ${JSON.stringify(await runner.get(owner, taskId))}`);
  };
  return { runner, launch, until, store };
}

describe('McpTaskRunner', () => {
  it('creates a working task bound to its owner and records the result when the handler returns', async () => {
    const { runner, launch, until } = setup({ pollIntervalMs: 250, defaultTtlMs: 60_000 });
    const held = gate();
    const task = (await launch(async () => {
      await held.opened;
      return text('done');
    }))!;
    expect(task).toMatchObject({ status: 'working', era: 'modern', tool: 'job', ttlMs: 60_000, pollIntervalMs: 250 });
    expect(await runner.get('alice', task.taskId)).toMatchObject({ status: 'working' });
    expect(await runner.get('bob', task.taskId)).toBeUndefined();
    expect(runner.size).toBe(1);
    held.open();
    expect(await until(task.taskId, 'completed')).toMatchObject({ result: text('done') });
    expect(runner.size).toBe(0);
  });

  it('settles (tasks/result) once the task ends, at once for a terminal one; stops waiting when its signal aborts', async () => {
    // A minute between polls, and a store that takes its time to write (as a remote one does): the wait must end
    // with the task's end written, not with the next poll.
    class SlowStore extends InMemoryTaskStore {
      override async update(...args: Parameters<InMemoryTaskStore['update']>) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return super.update(...args);
      }
    }
    const { runner, launch } = setup({ pollIntervalMs: 60_000 }, new SlowStore());
    const held = gate();
    const task = (await launch(async () => (await held.opened, text('late'))))!;
    const waiting = runner.settled('alice', task.taskId, new AbortController().signal);
    const aborted = new AbortController();
    const leaving = runner.settled('alice', task.taskId, aborted.signal);
    aborted.abort(new Error('client went away'));
    await expect(leaving).rejects.toThrow('client went away');
    held.open();
    expect(await waiting).toMatchObject({ status: 'completed', result: text('late') });
    expect(await runner.settled('alice', task.taskId, new AbortController().signal)).toMatchObject({
      status: 'completed',
    });
    expect(await runner.settled('bob', task.taskId, new AbortController().signal)).toBeUndefined();
  });

  it("keeps a legacy task input_required from its first question's start to its last one's end, in order", async () => {
    const { runner, launch, until } = setup();
    const statuses: string[] = [];
    let asking!: (delta: 1 | -1) => void;
    const held = gate();
    const task = (await launch(async () => (await held.opened, text('asked')), {
      era: 'legacy',
      onStatus: (record) => statuses.push(record.status),
      input: (running) => {
        asking = running.asking;
        return { elicit: jest.fn(), sample: jest.fn(), roots: jest.fn() };
      },
    }))!;
    asking(1);
    asking(1);
    asking(-1); // one question still waits
    await until(task.taskId, 'input_required');
    asking(-1);
    asking(1);
    asking(-1); // asked and answered before the store heard of the first change: it ends as working
    await until(task.taskId, 'working');
    await new Promise((resolve) => setImmediate(resolve));
    expect((await runner.get('alice', task.taskId))!.status).toBe('working');
    held.open();
    await until(task.taskId, 'completed');
    expect(statuses).toEqual(['input_required', 'working', 'input_required', 'working', 'completed']);
  });

  it('clamps the retention a request asks for to the limits', async () => {
    const { launch } = setup({ maxTtlMs: 120_000 });
    const never = () => new Promise<CallToolResult>(() => undefined);
    expect((await launch(never, { ttlMs: 10 * 60 * 60_000 }))!.ttlMs).toBe(120_000);
    expect((await launch(never, { ttlMs: 1 }))!.ttlMs).toBe(1_000);
  });

  it("maps a tool error by the creating era: completed in the modern era, failed in 2025-11-25's", async () => {
    const { launch, until } = setup();
    const toolError = async (): Promise<CallToolResult> => ({ ...text('no'), isError: true });
    const modern = (await launch(toolError))!;
    const legacy = (await launch(toolError, { era: 'legacy', input: () => ({}) as never }))!;
    expect(await until(modern.taskId, 'completed')).toMatchObject({ result: { isError: true } });
    expect(await until(legacy.taskId, 'failed')).toMatchObject({ result: { isError: true } });
  });

  it('records a JSON-RPC error as failed, with its code, message and data', async () => {
    const { launch, until } = setup();
    const task = (await launch(async () => {
      throw new McpError(ErrorCode.InternalError, 'simulated failure', { detail: 1 });
    }))!;
    const failed = await until(task.taskId, 'failed');
    expect(failed.error).toEqual({ code: ErrorCode.InternalError, message: 'simulated failure', data: { detail: 1 } });
    expect(failed.statusMessage).toBe('simulated failure');
    expect(failed.result).toBeUndefined();
  });

  it('cancels at once: cancelled before cancel resolves, the handler aborted, its late result ignored', async () => {
    const { runner, launch } = setup();
    let seen: RunningTask | undefined;
    const finish = gate();
    const task = (await launch(async (running) => {
      seen = running;
      await finish.opened;
      return text('too late');
    }))!;
    const cancelled = await runner.cancel('alice', task.taskId);
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    expect(seen!.signal.aborted).toBe(true);
    expect(seen!.signal.reason).toBeInstanceOf(McpAbortedError);
    finish.open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await runner.get('alice', task.taskId)).toMatchObject({ status: 'cancelled' });
    expect((await runner.get('alice', task.taskId))!.result).toBeUndefined();
    expect(runner.size).toBe(0);
  });

  it("leaves a terminal task as it is on cancel, and another owner's or an unknown one absent", async () => {
    const { runner, launch, until } = setup();
    const task = (await launch(async () => text('done')))!;
    await until(task.taskId, 'completed');
    expect(await runner.cancel('alice', task.taskId)).toMatchObject({ status: 'completed' });
    expect(await runner.cancel('bob', task.taskId)).toBeUndefined();
    expect(await runner.cancel('alice', 'no-such-task')).toBeUndefined();
  });

  describe("a modern task's questions", () => {
    it('are published as input_required, answered by tasks/update, and the task goes on', async () => {
      const { runner, launch, until } = setup();
      const task = (await launch(async ({ input }) => {
        const answer = await input.elicit('confirm', CONFIRM);
        return text(answer.action === 'accept' && answer.content?.ok === true ? 'confirmed' : 'kept');
      }))!;
      const waiting = await until(task.taskId, 'input_required');
      expect(waiting.inputRequests).toEqual({
        confirm: { method: 'elicitation/create', params: { ...CONFIRM, mode: 'form' } },
      });
      // An answer that does not fit is refused (-32602) and the question stays.
      await expect(
        runner.answer('alice', task.taskId, { confirm: { action: 'accept', content: { ok: 'yes' } } }),
      ).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
      expect(await runner.get('alice', task.taskId)).toMatchObject({ status: 'input_required' });
      // Keys not outstanding are ignored.
      expect(await runner.answer('alice', task.taskId, { other: { ignored: true } })).toBe(true);
      expect(await runner.answer('alice', task.taskId, { confirm: { action: 'accept', content: { ok: true } } })).toBe(
        true,
      );
      const done = await until(task.taskId, 'completed');
      expect(done.result).toEqual(text('confirmed'));
      expect(done.inputRequests).toBeUndefined();
    });

    it('can be answered one at a time, and a key asked again gets a key of its own', async () => {
      const { runner, launch, until } = setup();
      const task = (await launch(async ({ input }) => {
        const [first, second] = await Promise.all([input.elicit('q', CONFIRM), input.elicit('q', CONFIRM)]);
        return text(`${first.action} ${second.action}`);
      }))!;
      let waiting = await until(task.taskId, 'input_required');
      for (let n = 0; n < 50 && Object.keys(waiting.inputRequests ?? {}).length < 2; n++) {
        await new Promise((resolve) => setImmediate(resolve));
        waiting = (await runner.get('alice', task.taskId))!;
      }
      expect(Object.keys(waiting.inputRequests!).sort()).toEqual(['q', 'q#2']);
      await runner.answer('alice', task.taskId, { q: { action: 'decline' } });
      const half = await runner.get('alice', task.taskId);
      expect(half).toMatchObject({ status: 'input_required' });
      expect(Object.keys(half!.inputRequests!)).toEqual(['q#2']);
      await runner.answer('alice', task.taskId, { 'q#2': { action: 'cancel' } });
      expect((await until(task.taskId, 'completed')).result).toEqual(text('decline cancel'));
    });

    it('cannot ask what the creating request did not declare: the task fails with -32021', async () => {
      const { launch, until } = setup();
      const task = (await launch(
        async ({ input }) => {
          await input.sample('s', { messages: [], maxTokens: 10 });
          return text('unreachable');
        },
        { clientCapabilities: { elicitation: {} } },
      ))!;
      const failed = await until(task.taskId, 'failed');
      expect(failed.error).toMatchObject({
        code: ErrorCode.MissingRequiredClientCapability,
        data: { requiredCapabilities: { sampling: {} } },
      });
    });

    it('end when the task is cancelled: the waiting handler gets the abort', async () => {
      const { runner, launch, until } = setup();
      let outcome: unknown;
      const task = (await launch(async ({ input }) => {
        outcome = await input.elicit('confirm', CONFIRM).catch((error: unknown) => error);
        return text('after');
      }))!;
      await until(task.taskId, 'input_required');
      await runner.cancel('alice', task.taskId);
      await new Promise((resolve) => setImmediate(resolve));
      expect(outcome).toBeInstanceOf(McpAbortedError);
      expect(await runner.get('alice', task.taskId)).toMatchObject({ status: 'cancelled' });
    });
  });

  it('creates no task past maxRunning or a full store, and frees the room when a task ends', async () => {
    const { launch, until } = setup({ maxRunning: 1 }, new InMemoryTaskStore({ maxTasksPerOwner: 2 }));
    const held = gate();
    const first = (await launch(async () => {
      await held.opened;
      return text('1');
    }))!;
    expect(await launch(async () => text('2'))).toBeUndefined();
    held.open();
    await until(first.taskId, 'completed');
    const second = (await launch(async () => text('2')))!;
    await until(second.taskId, 'completed');
    // Two tasks kept for alice: the store refuses a third, and nothing is left running for it.
    expect(await launch(async () => text('3'))).toBeUndefined();
    expect(await launch(async () => text('b'), { owner: 'bob' })).toBeDefined();
  });

  it('aborts a task past its retention', async () => {
    const { launch } = setup({ defaultTtlMs: 1_000 });
    let signal: AbortSignal | undefined;
    await launch(async (running) => {
      signal = running.signal;
      return new Promise<CallToolResult>(() => undefined);
    });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(signal!.aborted).toBe(true);
    expect(String((signal!.reason as Error).message)).toBe('Task expired');
  });

  it('marks the tasks still running failed at shutdown and aborts them', async () => {
    const { runner, launch } = setup();
    let signal: AbortSignal | undefined;
    const task = (await launch(async (running) => {
      signal = running.signal;
      return new Promise<CallToolResult>(() => undefined);
    }))!;
    await runner.onApplicationShutdown();
    expect(signal!.aborted).toBe(true);
    expect(await runner.get('alice', task.taskId)).toMatchObject({
      status: 'failed',
      error: { code: ErrorCode.InternalError, message: 'The server shut down before the task ended' },
    });
    expect(runner.size).toBe(0);
  });

  it('publishes each change of status on conduit-mcp:task, without the task id', async () => {
    const events: McpTaskEvent[] = [];
    const listen = (event: unknown) => void events.push(event as McpTaskEvent);
    subscribe(MCP_CHANNELS.task, listen);
    try {
      const { runner, launch, until } = setup();
      const asked = (await launch(async ({ input }) => {
        await input.elicit('confirm', CONFIRM);
        return text('done');
      }))!;
      await until(asked.taskId, 'input_required');
      await runner.answer('alice', asked.taskId, { confirm: { action: 'decline' } });
      await until(asked.taskId, 'completed');
      const cancelled = (await launch(() => new Promise<CallToolResult>(() => undefined)))!;
      await runner.cancel('alice', cancelled.taskId);
      const seen = events.map(({ type, status }) => `${type}:${status}`);
      expect(seen).toEqual([
        'created:working',
        'status:input_required',
        'status:working',
        'status:completed',
        'created:working',
        'status:cancelled',
      ]);
      expect(events[0]).toEqual({ server: 'spec', tool: 'job', era: 'modern', type: 'created', status: 'working' });
      expect(events[3].durationMs).toEqual(expect.any(Number));
      expect(JSON.stringify(events)).not.toContain(asked.taskId);
    } finally {
      unsubscribe(MCP_CHANNELS.task, listen);
    }
  });

  it('refuses limits that are not positive integers', () => {
    expect(() => setup({ maxRunning: 0 })).toThrow('tasks.maxRunning must be a positive integer');
  });
});

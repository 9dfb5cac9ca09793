import { CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CallToolResult, ErrorCode } from '@conduit-mcp/core';
import { McpCtx } from '../decorators/mcp-params.decorator';
import { McpTool } from '../decorators/mcp-tool.decorator';
import { McpRequestContext } from '../context/mcp-request-context';
import { McpExecutionContext } from '../context/mcp-execution-context';
import { McpEventBus, McpBusEvent } from '../events/mcp-event.bus';
import { McpModule } from '../mcp.module';
import { hostOf } from '../mcp.server';
import { McpContextType } from '../mcp.constants';
import { createMcpTestingModule, McpTestingModule } from '../testing/mcp-testing.module';
import { McpTestClient } from '../testing/mcp-test.client';
import { McpTaskExecutor } from './mcp-task.executor';
import { McpTaskJob, McpTaskQueue } from './task.queue';
import { TaskRecord, TaskStore } from './task.store';

// McpTaskExecutor in the app that a worker boots: a durable tool's task queued by a call (2025-11-25 over the testing
// module's in-memory session), then run from its job through the same pipeline, as a worker does.

@Injectable()
class AdaOnly implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType<McpContextType>() !== 'mcp') return true;
    return McpExecutionContext.create(context).getContext().auth?.subject === 'ada';
  }
}

@Injectable()
class Durable {
  static runs = 0;

  @McpTool({ name: 'whoami', task: 'optional', durable: true })
  @UseGuards(AdaOnly)
  whoami(@McpCtx() ctx: McpRequestContext) {
    Durable.runs++;
    return `${String(ctx.auth?.subject)} (${ctx.auth?.token === undefined ? 'no token' : 'token'}), ${ctx.era}`;
  }

  @McpTool({ name: 'asks', task: 'optional', durable: true })
  async asks(@McpCtx() ctx: McpRequestContext): Promise<CallToolResult> {
    await ctx.input.elicit('go', { message: 'Go?', requestedSchema: { type: 'object', properties: {} } });
    return { content: [{ type: 'text', text: 'asked' }] };
  }

  @McpTool({ name: 'refuses', task: 'optional', durable: true })
  refuses(): CallToolResult {
    return { content: [{ type: 'text', text: 'no' }], isError: true };
  }
}

class RecordingQueue implements McpTaskQueue {
  readonly jobs: McpTaskJob[] = [];
  async enqueue(job: McpTaskJob): Promise<void> {
    this.jobs.push(job);
  }
}

const ADA = { subject: 'ada', scopes: [], claims: { sub: 'ada' }, token: 'secret' };

describe('McpTaskExecutor', () => {
  let testing: McpTestingModule;
  let queue: RecordingQueue;
  let executor: McpTaskExecutor;
  let store: TaskStore;
  let events: McpBusEvent[];

  beforeEach(async () => {
    queue = new RecordingQueue();
    Durable.runs = 0;
    testing = await createMcpTestingModule(
      {
        imports: [McpModule.forRoot({ name: 'exec', version: '1', http: false, taskQueue: queue })],
        providers: [Durable, AdaOnly],
      },
      { client: { auth: ADA, capabilities: { elicitation: {} } } },
    );
    executor = testing.moduleRef.get(McpTaskExecutor);
    store = testing.moduleRef.get<TaskStore>(TaskStore);
    events = [];
    testing.moduleRef.get<McpEventBus>(McpEventBus).subscribe((event) => events.push(event));
  });

  afterEach(() => testing.close());

  async function queuedCall(name: string): Promise<{ job: McpTaskJob; taskId: string }> {
    const { task } = await testing.client.request<{ task: { taskId: string; status: string } }>('tools/call', {
      name,
      arguments: {},
      task: {},
    });
    expect(task.status).toBe('working');
    const job = queue.jobs.find((queued) => queued.taskId === task.taskId)!;
    expect(job).toBeDefined();
    return { job, taskId: task.taskId };
  }

  const get = (taskId: string) => store.get('subject:ada', taskId) as Promise<TaskRecord>;

  it("queues the call's task with the caller's auth but never the token, then runs it through the guards", async () => {
    const { job, taskId } = await queuedCall('whoami');
    expect(Durable.runs).toBe(0);
    expect(job).toMatchObject({ server: 'exec', tool: 'whoami', era: 'legacy', transport: 'memory' });
    expect(job.auth).toEqual({ subject: 'ada', scopes: [], claims: { sub: 'ada' } });
    await executor.execute(job, new AbortController().signal);
    expect(Durable.runs).toBe(1);
    expect(await get(taskId)).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'ada (no token), legacy' }] },
    });
    // The change is announced on the bus, and the session that created the task is told (legacy status).
    expect(events).toContainEqual({
      type: 'task-status',
      server: 'exec',
      taskId,
      owner: 'subject:ada',
      status: 'completed',
    });
    const notice = await testing.client.waitForNotification('notifications/tasks/status', 2_000);
    expect(notice.params).toMatchObject({ taskId, status: 'completed' });
  });

  it("fails a task whose guard refuses the job's caller", async () => {
    const { job, taskId } = await queuedCall('whoami');
    await executor.execute({ ...job, auth: { subject: 'bob', scopes: [], claims: {} } }, new AbortController().signal);
    expect(Durable.runs).toBe(0);
    expect(await get(taskId)).toMatchObject({ status: 'failed', error: { code: ErrorCode.ServerError } });
  });

  it('ends by the era of the call (a 2025-11-25 tool error fails the task), and refuses a worker task questions in 2025-11-25', async () => {
    const refused = await queuedCall('refuses');
    await executor.execute(refused.job, new AbortController().signal);
    expect(await get(refused.taskId)).toMatchObject({ status: 'failed', result: { isError: true } });

    const asks = await queuedCall('asks');
    await executor.execute(asks.job, new AbortController().signal);
    expect(await get(asks.taskId)).toMatchObject({
      status: 'failed',
      error: { code: ErrorCode.InternalError, message: expect.stringContaining('cannot ask the client') },
    });
  });

  it('skips a task that ended while queued, and fails a given-up job once', async () => {
    const { job, taskId } = await queuedCall('whoami');
    await testing.client.request('tasks/cancel', { taskId });
    await executor.execute(job, new AbortController().signal);
    expect(Durable.runs).toBe(0);
    expect(await get(taskId)).toMatchObject({ status: 'cancelled' });

    const other = await queuedCall('whoami');
    await executor.fail(other.job, 'its worker stopped');
    expect(await get(other.taskId)).toMatchObject({ status: 'failed', error: { message: 'its worker stopped' } });
    await executor.fail(other.job, 'again');
    expect(await get(other.taskId)).toMatchObject({ error: { message: 'its worker stopped' } });
  });

  it('cancels a queued task owned by its session (no authenticator) when the session ends, and tells the worker', async () => {
    const anonymous = await McpTestClient.connect(testing.server, { capabilities: {} });
    const { task } = await anonymous.request<{ task: { taskId: string } }>('tools/call', {
      name: 'refuses',
      arguments: {},
      task: {},
    });
    const job = queue.jobs.find((queued) => queued.taskId === task.taskId)!;
    expect(job.owner).toMatch(/^session:/);
    await anonymous.close();
    for (let n = 0; n < 50 && !events.some((event) => event.type === 'task-cancel'); n++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(await store.get(job.owner, task.taskId)).toMatchObject({ status: 'cancelled' });
    expect(events).toContainEqual({ type: 'task-cancel', server: 'exec', taskId: task.taskId, owner: job.owner });
  });

  it('keeps a queued task owned by its session when the session only closes here (another instance may serve it)', async () => {
    const anonymous = await McpTestClient.connect(testing.server, { capabilities: {} });
    const { task } = await anonymous.request<{ task: { taskId: string } }>('tools/call', {
      name: 'refuses',
      arguments: {},
      task: {},
    });
    const job = queue.jobs.find((queued) => queued.taskId === task.taskId)!;
    expect(hostOf(testing.server).sessions.closeLocal(job.owner.slice('session:'.length))).toBe(true);
    for (let n = 0; n < 50; n++) await new Promise((resolve) => setImmediate(resolve));
    expect(await store.get(job.owner, task.taskId)).toMatchObject({ status: 'working' });
    expect(events).not.toContainEqual(expect.objectContaining({ type: 'task-cancel', taskId: task.taskId }));
    await anonymous.close();
  });

  it('refuses a malformed job, a job of another server, and one that does not match its task', async () => {
    const { job } = await queuedCall('whoami');
    const signal = new AbortController().signal;
    await expect(executor.execute({ ...job, era: 'future' } as never, signal)).rejects.toThrow(
      'Invalid task job: "era" must be one of modern, legacy',
    );
    await expect(executor.execute({ ...job, arguments: [] } as never, signal)).rejects.toThrow(
      'Invalid task job: "arguments" must be an object',
    );
    await expect(executor.execute({ ...job, server: 'other' }, signal)).rejects.toThrow(
      'Invalid task job: for server other, not exec',
    );
    await expect(executor.execute({ ...job, tool: 'asks' }, signal)).rejects.toThrow('does not match task');
    expect(Durable.runs).toBe(0);
  });
});

describe('@McpTool({ durable })', () => {
  it.each([
    [{ name: 'job', durable: true }, "durable needs task: 'optional' or 'required'"],
    [{ name: 'job', task: 'optional', taskStart: 'handler', durable: true }, "durable excludes taskStart: 'handler'"],
    [{ name: 'job', task: 'optional', durable: 'yes' }, 'durable must be true or false, not yes'],
  ])('refuses %j at start-up, naming the method', async (options, message) => {
    @Injectable()
    class Declared {
      @McpTool(options as never) job() {}
    }
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'decl', version: '1', http: false })],
      providers: [Declared],
    }).compile();
    await expect(moduleRef.init()).rejects.toThrow(`Declared.job: ${message}`);
    await moduleRef.close().catch(() => undefined);
  });
});

import { JsonRpcId } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { McpTaskCancelledError, McpTaskFailedError } from '../errors/mcp-task.error';
import { LegacyTaskAwaiter, LegacyTaskHost } from './legacy-task.awaiter';
import { McpCallOptions } from './mcp-call-options';
import { MAX_TIMER_MS } from './task-wait';
import { TaskWatches } from './task-watches';

const now = Date.now();
const at = (n: number) => new Date(now + n * 1_000).toISOString();

/**
 * A legacy server whose tasks/get answers are scripted (the last repeats) and whose tasks/result the test settles;
 * requests heed their signal as the call table does.
 */
function server(gets: Array<Record<string, unknown> | Error>) {
  const sent: Array<{ method: string; options: McpCallOptions; id?: JsonRpcId }> = [];
  let settleResult!: { resolve(result: Record<string, unknown>): void; reject(error: Error): void };
  let n = 0;
  const watches = new TaskWatches();
  const host: LegacyTaskHost = {
    watches,
    newId: () => 'result-1',
    send: (method, _params, options, id) => {
      sent.push({ method, options, id });
      return new Promise((resolve, reject) => {
        options.signal?.addEventListener('abort', () => reject(new McpClientError('cancelled', `${method} cancelled`)));
        if (method === 'tasks/result') return (settleResult = { resolve, reject });
        const next = gets[Math.min(n, gets.length - 1)];
        const view =
          next instanceof Error
            ? next
            : { taskId: 't-1', createdAt: at(0), lastUpdatedAt: at(n), ttl: 60_000, ...next };
        n++;
        if (view instanceof Error) reject(view);
        else resolve(view);
      });
    },
  };
  const resultSent = async () => {
    for (let i = 0; i < 100 && !sent.some((request) => request.method === 'tasks/result'); i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    return settleResult;
  };
  return { host, sent, watches, resultSent };
}

const notify = (watches: TaskWatches, task: Record<string, unknown>) =>
  watches.status({ taskId: 't-1', createdAt: at(0), ttl: 60_000, ...task });

describe('LegacyTaskAwaiter', () => {
  it('keeps one tasks/result in flight, reports polls and notifications once each, and resolves its result', async () => {
    const { host, sent, watches, resultSent } = server([
      { status: 'working', pollInterval: 100 },
      { status: 'input_required', statusMessage: 'Sure?', lastUpdatedAt: at(5), pollInterval: 100 },
    ]);
    const statuses: string[] = [];
    const waiting = new LegacyTaskAwaiter(host, 1_000).await('t-1', {
      onStatus: (task) => statuses.push(`${task.status}${task.statusMessage ? ` ${task.statusMessage}` : ''}`),
    });
    const result = await resultSent();
    notify(watches, { status: 'input_required', statusMessage: 'Sure?', lastUpdatedAt: at(5) });
    await new Promise((resolve) => setTimeout(resolve, 250)); // two polls
    notify(watches, { status: 'working', lastUpdatedAt: at(6) });
    result.resolve({
      content: [{ type: 'text', text: 'done' }],
      _meta: { 'io.modelcontextprotocol/related-task': {} },
    });
    await expect(waiting).resolves.toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    expect(statuses).toEqual(['working', 'input_required Sure?', 'working']);
    const results = sent.filter((request) => request.method === 'tasks/result');
    expect(results).toEqual([expect.objectContaining({ id: 'result-1' })]);
    // No deadline of 60 s: the task's retention and a margin.
    expect(results[0].options.timeout).toBeGreaterThan(60_000);
    const polls = sent.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sent).toHaveLength(polls); // polling stopped with the result
  });

  it('takes the deadline of tasks/result from the wait’s timeout when there is one, and none for an unlimited task', async () => {
    const limited = server([{ status: 'working', pollInterval: 60_000 }]);
    const waiting = new LegacyTaskAwaiter(limited.host, 1_000).await('t-1', { timeout: 40 });
    await expect(waiting).rejects.toMatchObject({ kind: 'timeout' });
    expect(limited.sent.find((request) => request.method === 'tasks/result')?.options.timeout).toBe(MAX_TIMER_MS);

    const unlimited = server([{ status: 'working', ttl: null, pollInterval: 60_000 }]);
    const controller = new AbortController();
    const stopped = new LegacyTaskAwaiter(unlimited.host, 1_000).await('t-1', { signal: controller.signal });
    await unlimited.resultSent();
    controller.abort();
    await expect(stopped).rejects.toMatchObject({ kind: 'cancelled', message: expect.stringMatching(/goes on/) });
    expect(unlimited.sent.find((request) => request.method === 'tasks/result')?.options.timeout).toBe(MAX_TIMER_MS);
  });

  it('cancels its tasks/result locally when a poll or a notification shows the task cancelled', async () => {
    const polled = server([{ status: 'working', pollInterval: 100 }, { status: 'cancelled' }]);
    await expect(new LegacyTaskAwaiter(polled.host, 1_000).await('t-1')).rejects.toBeInstanceOf(McpTaskCancelledError);

    const notified = server([{ status: 'working', pollInterval: 60_000 }]);
    const waiting = new LegacyTaskAwaiter(notified.host, 1_000).await('t-1');
    await notified.resultSent();
    notify(notified.watches, { status: 'cancelled', statusMessage: 'by another client', lastUpdatedAt: at(9) });
    await expect(waiting).rejects.toMatchObject({
      name: 'McpTaskCancelledError',
      message: 'Task t-1 was cancelled: by another client',
    });
  });

  it('tells a failed task’s error from an unknown task by the task’s status', async () => {
    const failed = server([{ status: 'working', pollInterval: 60_000 }, { status: 'failed' }]);
    const waiting = new LegacyTaskAwaiter(failed.host, 1_000).await('t-1');
    (await failed.resultSent()).reject(new McpClientError('rpc', 'simulated failure', -32602, { why: 'args' }));
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpTaskFailedError);
    expect(error).toMatchObject({ code: -32602, data: { why: 'args' }, message: 'Task t-1 failed: simulated failure' });

    const gone = server([
      { status: 'working', pollInterval: 60_000 },
      new McpClientError('rpc', 'Unknown task', -32602),
    ]);
    const expired = new LegacyTaskAwaiter(gone.host, 1_000).await('t-1');
    (await gone.resultSent()).reject(new McpClientError('rpc', 'Unknown task', -32602));
    await expect(expired).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/unknown to the server/),
    });

    const never = server([new McpClientError('rpc', 'Unknown task', -32602)]);
    await expect(new LegacyTaskAwaiter(never.host, 1_000).await('t-1')).rejects.toMatchObject({
      kind: 'rpc',
      code: -32602,
      message: expect.stringMatching(/^Task t-1 is unknown to the server/),
    });
    expect(never.sent.map((request) => request.method)).toEqual(['tasks/get']);
  });
});

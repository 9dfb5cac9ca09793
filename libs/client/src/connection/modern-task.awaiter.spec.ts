import { McpClientError } from '../errors/mcp-client.error';
import { McpTaskCancelledError, McpTaskFailedError } from '../errors/mcp-task.error';
import { McpCallOptions } from './mcp-call-options';
import { ModernTaskAwaiter, ModernTaskHost } from './modern-task.awaiter';

const TASKS_DECLARED = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const base = {
  taskId: 't-1',
  createdAt: '2026-01-01T00:00:00Z',
  ttlMs: 60_000,
  pollIntervalMs: 1,
  resultType: 'complete',
};
const at = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, '0')}Z`;

/** A server scripted by the answers of its successive tasks/get; records what the awaiter sent and asked. */
function server(gets: Array<Record<string, unknown> | Error>) {
  const sent: Array<{ method: string; params: Record<string, unknown>; options: McpCallOptions }> = [];
  const asked: string[] = [];
  let n = 0;
  const host: ModernTaskHost = {
    send: async (method, params, options) => {
      sent.push({ method, params, options });
      if (method !== 'tasks/get') return { resultType: 'complete' };
      const next = gets[Math.min(n, gets.length - 1)];
      const answer = next instanceof Error ? next : { ...base, lastUpdatedAt: at(n), ...next };
      n++;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    capabilities: () => ({ elicitation: {} }),
    answer: async (_method, params) => (asked.push(String(params.message)), { action: 'accept', content: {} }),
  };
  return { host, sent, asked };
}

const question = (message: string) => ({ method: 'elicitation/create', params: { message, requestedSchema: {} } });

describe('ModernTaskAwaiter', () => {
  it('answers each question once, sends the answers with tasks/update, and resolves the result', async () => {
    const { host, sent, asked } = server([
      { status: 'working' },
      { status: 'input_required', inputRequests: { a: question('A?') } },
      // Still listed while the task takes the answer in, then a second question beside it.
      { status: 'input_required', inputRequests: { a: question('A?') } },
      { status: 'input_required', inputRequests: { a: question('A?'), b: question('B?') } },
      { status: 'working' },
      { status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
    const statuses: string[] = [];
    const result = await new ModernTaskAwaiter(host, 1_000).await('t-1', {
      onStatus: (task) => statuses.push(task.status),
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(asked).toEqual(['A?', 'B?']);
    const updates = sent.filter((request) => request.method === 'tasks/update').map((request) => request.params);
    expect(updates).toMatchObject([
      { taskId: 't-1', inputResponses: { a: { action: 'accept' } } },
      { taskId: 't-1', inputResponses: { b: { action: 'accept' } } },
    ]);
    expect(Object.keys(updates[1].inputResponses as object)).toEqual(['b']);
    expect(statuses).toEqual(['working', 'input_required', 'working', 'completed']);
    for (const { params } of sent)
      expect((params._meta as Record<string, unknown>)['io.modelcontextprotocol/clientCapabilities']).toEqual(
        TASKS_DECLARED,
      );
  });

  it('polls at the server’s interval, never faster than 100 ms', async () => {
    const { host, sent } = server([{ status: 'working' }, { status: 'working' }, { status: 'completed', result: {} }]);
    const started = Date.now();
    await new ModernTaskAwaiter(host, 1_000).await('t-1');
    expect(sent).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('rejects a failed task with its error, a cancelled one, and an unknown one (-32602 kept)', async () => {
    const failed = server([{ status: 'failed', error: { code: -32603, message: 'boom', data: { step: 2 } } }]);
    await expect(new ModernTaskAwaiter(failed.host, 1_000).await('t-1')).rejects.toEqual(
      expect.objectContaining({ name: 'McpTaskFailedError', kind: 'rpc', code: -32603, data: { step: 2 } }),
    );
    await expect(new ModernTaskAwaiter(failed.host, 1_000).await('t-1')).rejects.toBeInstanceOf(McpTaskFailedError);

    const cancelled = server([{ status: 'cancelled', statusMessage: 'Cancelled by the client' }]);
    const error = await new ModernTaskAwaiter(cancelled.host, 1_000).await('t-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpTaskCancelledError);
    expect((error as Error).message).toBe('Task t-1 was cancelled: Cancelled by the client');

    const gone = server([new McpClientError('rpc', 'Unknown task: t-1', -32602)]);
    await expect(new ModernTaskAwaiter(gone.host, 1_000).await('t-1')).rejects.toMatchObject({
      kind: 'rpc',
      code: -32602,
      message: expect.stringMatching(/^Task t-1 is unknown to the server: it expired/),
    });
  });

  it('stops waiting on abort or timeout, without touching the task', async () => {
    const slow = server([{ status: 'working', pollIntervalMs: 60_000 }]);
    const controller = new AbortController();
    const waiting = new ModernTaskAwaiter(slow.host, 1_000).await('t-1', { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(waiting).rejects.toMatchObject({
      kind: 'cancelled',
      message: 'Stopped waiting for task t-1; the task goes on (cancelTask stops it)',
    });
    await expect(new ModernTaskAwaiter(slow.host, 1_000).await('t-1', { timeout: 30 })).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(slow.sent.map((request) => request.method)).not.toContain('tasks/cancel');
  });

  it('fails when the task asks what this client did not declare, answering nothing', async () => {
    const { host, asked } = server([
      { status: 'input_required', inputRequests: { s: { method: 'sampling/createMessage', params: {} } } },
    ]);
    await expect(new ModernTaskAwaiter(host, 1_000).await('t-1')).rejects.toMatchObject({
      kind: 'protocol',
      message: 'The server asked for sampling/createMessage, which this client did not declare',
    });
    expect(asked).toEqual([]);
  });
});

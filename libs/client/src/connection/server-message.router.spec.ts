import { ClientCapabilities, Era, JsonRpcMessage } from '@conduit-mcp/core';
import { ClientTransport } from '../transports/client-transport.interface';
import { CallTable } from './call-table';
import { ConnectionHost } from './connection.host';
import { McpInputMethod, McpInputResponder, McpInputSituation } from './input-responder.interface';
import { ModernEnvelope } from './modern-envelope';
import { ServerMessageRouter } from './server-message.router';
import { ServerRequestRunner } from './server-request.runner';
import { TaskWatches } from './task-watches';

/** Records the questions and notifications that reach it; answers every question alike. */
class RecordingResponder implements McpInputResponder {
  readonly asked: Array<{ method: McpInputMethod; situation: McpInputSituation }> = [];
  readonly notified: Array<{ method: string; era: Era }> = [];

  constructor(private readonly declared: ClientCapabilities) {}

  capabilities(): ClientCapabilities {
    return this.declared;
  }

  async answer(method: McpInputMethod, _params: Record<string, unknown>, situation: McpInputSituation) {
    this.asked.push({ method, situation });
    return { roots: [] };
  }

  notify(method: string, _params: Record<string, unknown>, ctx: { era: Era }): void {
    this.notified.push({ method, era: ctx.era });
  }
}

function router(era: Era, options: { origin?: string; configuredOrigin?: string } = {}) {
  const written: JsonRpcMessage[] = [];
  const transport: ClientTransport = {
    start: async () => undefined,
    close: async () => undefined,
    origin: options.origin,
    send: async (message) => void written.push(message),
  };
  const responder = new RecordingResponder({ roots: {} });
  const host: ConnectionHost = {
    transport: () => transport,
    write: (message) => transport.send(message),
    era: () => era,
    revision: () => undefined,
    capabilities: () => responder.capabilities(),
    clientInfo: () => ({ name: 'spec', version: '1.0.0' }),
    logLevel: () => undefined,
    eventScope: (method) => ({ client: 'spec', server: 'peer', method, era }),
  };
  const envelope = new ModernEnvelope(host);
  const calls = new CallTable(host, envelope, { requestTimeoutMs: 1_000 });
  const runner = new ServerRequestRunner(
    8,
    () => 1_000,
    (response) => void host.write(response),
  );
  const tasks = new TaskWatches();
  const subject = new ServerMessageRouter(
    'peer',
    { name: 'spec', assigns: { tenant: 't1' }, elicitation: { origin: options.configuredOrigin } },
    host,
    calls,
    runner,
    responder,
    envelope,
    tasks,
  );
  return { subject, calls, responder, written, envelope, tasks };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ServerMessageRouter', () => {
  it('settles a call with its response', async () => {
    const { subject, calls } = router('legacy');
    const pending = calls.send('ping', {});
    subject.onMessage({ jsonrpc: '2.0', id: 1, result: {} }, undefined);
    await expect(pending).resolves.toEqual({});
  });

  it('hands a legacy question to the responder, tied on stdio to the only call in flight', async () => {
    const { subject, calls, responder, written } = router('legacy');
    const pending = calls.send('tools/call', { name: 'ask' }, { assigns: { user: 'u1' } });
    subject.onMessage({ jsonrpc: '2.0', id: 'q1', method: 'roots/list' }, undefined);
    await settle();
    expect(responder.asked).toHaveLength(1);
    expect(responder.asked[0].situation).toMatchObject({
      client: 'spec',
      serverId: 'peer',
      era: 'legacy',
      assigns: { user: 'u1' },
      relatedRequestId: 1,
      callsInFlight: 1,
      origin: undefined,
    });
    expect(written.at(-1)).toEqual({ jsonrpc: '2.0', id: 'q1', result: { roots: [] } });
    calls.onResponse({ jsonrpc: '2.0', id: 1, result: {} }, false);
    await pending;
  });

  it('refuses a question the client did not declare, and any question in the modern era', async () => {
    const legacy = router('legacy');
    legacy.subject.onMessage({ jsonrpc: '2.0', id: 'q1', method: 'sampling/createMessage', params: {} }, undefined);
    const modern = router('modern');
    modern.subject.onMessage({ jsonrpc: '2.0', id: 'q2', method: 'roots/list' }, undefined);
    await settle();
    expect(legacy.written).toMatchObject([{ id: 'q1', error: { code: -32601 } }]);
    expect(modern.written).toMatchObject([{ id: 'q2', error: { code: -32601 } }]);
    expect([...legacy.responder.asked, ...modern.responder.asked]).toEqual([]);
  });

  it('prefers the configured origin over the transport’s for modern input', async () => {
    const { subject, responder } = router('modern', {
      origin: 'http://127.0.0.1:1',
      configuredOrigin: 'https://public.example',
    });
    await subject.answer('roots/list', {}, undefined, undefined);
    expect(responder.asked[0].situation).toMatchObject({
      era: 'modern',
      assigns: { tenant: 't1' },
      relatedRequestId: undefined,
      origin: 'https://public.example',
    });
  });

  it('routes progress to its call, acknowledgements to their listen, and the rest to the responder', async () => {
    const { subject, calls, responder, written } = router('modern');
    const progress: number[] = [];
    const slow = calls.send('tools/call', { name: 'slow' }, { onProgress: (report) => progress.push(report.progress) });
    subject.onMessage(
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } },
      undefined,
    );
    expect(progress).toEqual([2]);

    const listening = calls.listen({ toolsListChanged: true });
    const listenId = (written.at(-1) as { id: number }).id;
    subject.onMessage(
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: { toolsListChanged: true },
          _meta: { 'io.modelcontextprotocol/subscriptionId': listenId },
        },
      },
      undefined,
    );
    await expect(listening).resolves.toMatchObject({ acknowledged: { toolsListChanged: true } });

    subject.onMessage({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, undefined);
    expect(responder.notified).toEqual([{ method: 'notifications/tools/list_changed', era: 'modern' }]);
    calls.rejectAll(() => new Error('done'));
    await expect(slow).rejects.toThrow('done');
  });

  it("forgets the tools' header declarations when the server says its tools changed", () => {
    const { subject, envelope, responder } = router('modern');
    envelope.learnTool({ name: 'search', inputSchema: { type: 'object' } });
    envelope.assumeNoHeaders('unlisted');
    subject.onMessage({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' }, undefined);
    expect([envelope.knowsTool('search'), envelope.knowsTool('unlisted')]).toEqual([true, true]);
    subject.onMessage({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, undefined);
    // The next call to either lists the tools again; the app's handlers still hear of it.
    expect([envelope.knowsTool('search'), envelope.knowsTool('unlisted')]).toEqual([false, false]);
    expect(responder.notified.map((n) => n.method)).toEqual([
      'notifications/resources/list_changed',
      'notifications/tools/list_changed',
    ]);
  });

  it("ties a question of an awaited task to the task's tasks/result call, and hands its status notifications to it", async () => {
    const { subject, calls, responder, tasks } = router('legacy', { origin: 'http://127.0.0.1:1' });
    const statuses: unknown[] = [];
    const resultCall = calls.newId();
    const unwatch = tasks.watch('t-1', { resultCall, onStatus: (task) => statuses.push(task.status) });
    const result = calls.send('tasks/result', { taskId: 't-1' }, { assigns: { user: 'u2' } }, resultCall);
    const poll = calls.send('tasks/get', { taskId: 't-1' });
    // On the GET stream: no request names it, two calls are in flight; the related-task _meta does.
    subject.onMessage(
      {
        jsonrpc: '2.0',
        id: 'q1',
        method: 'roots/list',
        params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't-1' } } },
      },
      undefined,
    );
    subject.onMessage(
      { jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 't-1', status: 'input_required' } },
      undefined,
    );
    subject.onMessage(
      { jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 'other', status: 'working' } },
      undefined,
    );
    await settle();
    expect(responder.asked[0].situation).toMatchObject({ relatedRequestId: resultCall, assigns: { user: 'u2' } });
    expect(statuses).toEqual(['input_required']);
    expect(responder.notified.map((n) => n.method)).toEqual([
      'notifications/tasks/status',
      'notifications/tasks/status',
    ]);
    unwatch();
    calls.rejectAll(() => new Error('done'));
    await Promise.allSettled([result, poll]);
  });
});

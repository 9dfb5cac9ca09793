import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Era, JsonRpcMessage, JsonRpcRequest } from '@conduit-mcp/core';
import { CallTable } from '../connection/call-table';
import { ConnectionHost } from '../connection/connection.host';
import { ModernEnvelope } from '../connection/modern-envelope';
import { McpClientError } from '../errors/mcp-client.error';
import { ClientTransport } from '../transports/client-transport.interface';
import { MCP_CLIENT_CHANNELS, McpClientRequestEvent, McpClientRequestTrace } from './mcp-client.channels';
import { TraceRecorder, recordTraces } from './trace-recorder.fixtures-spec';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** Records each message it is given, in `log` too; `origin` set makes it an HTTP transport. */
class FakeTransport implements ClientTransport {
  readonly sent: JsonRpcRequest[] = [];
  sessionId?: string;

  constructor(
    private readonly log: string[],
    readonly origin?: string,
  ) {}

  async start(): Promise<void> {}
  async close(): Promise<void> {}

  async send(message: JsonRpcMessage): Promise<void> {
    this.log.push(`write ${(message as JsonRpcRequest).method}`);
    this.sent.push(message as JsonRpcRequest);
  }
}

function table(era: Era, origin?: string) {
  const log: string[] = [];
  const transport = new FakeTransport(log, origin);
  const host: ConnectionHost = {
    transport: () => transport,
    write: (message) => transport.send(message),
    era: () => era,
    revision: () => (era === 'modern' ? '2026-07-28' : '2025-06-18'),
    capabilities: () => ({}),
    clientInfo: () => ({ name: 'spec', version: '1.0.0' }),
    logLevel: () => undefined,
    eventScope: (method) => ({ client: 'spec', server: 'peer', method, era }),
  };
  return { calls: new CallTable(host, new ModernEnvelope(host), { requestTimeoutMs: 1_000 }), transport, log };
}

describe('request traces on the tracing channel conduit-mcp:client:request', () => {
  const caller = new AsyncLocalStorage<string>();
  let recorder: TraceRecorder<McpClientRequestTrace> | undefined;
  /** What the `start` subscriber puts in `traceContext`. */
  let injected: McpClientRequestTrace['traceContext'] = {};
  let callerSeen: Array<string | undefined> = [];
  let log: string[] = [];

  function traceRequests(): TraceRecorder<McpClientRequestTrace> {
    recorder = recordTraces<McpClientRequestTrace>(MCP_CLIENT_CHANNELS.request, (trace) => {
      callerSeen.push(caller.getStore());
      log.push(`start ${trace.method}`);
      Object.assign(trace.traceContext, injected);
    });
    return recorder;
  }

  beforeEach(() => {
    injected = {};
    callerSeen = [];
    log = [];
  });
  afterEach(() => recorder?.stop());

  it("publishes start in the caller's async context before the request is built, and sends its traceContext", async () => {
    const traces = traceRequests();
    const fake = table('legacy');
    log = fake.log;
    injected = { traceparent: TRACEPARENT, tracestate: 'vendor=1' };
    const params = { name: 'echo', arguments: { text: 'hi' }, _meta: { custom: 1 } };
    const pending = caller.run('the caller', () => fake.calls.send('tools/call', params));
    expect(log).toEqual(['start tools/call', 'write tools/call']);
    expect(callerSeen).toEqual(['the caller']);
    expect(fake.transport.sent[0].params?._meta).toEqual({
      custom: 1,
      traceparent: TRACEPARENT,
      tracestate: 'vendor=1',
    });
    // The caller's params and _meta are not touched.
    expect(params).toEqual({ name: 'echo', arguments: { text: 'hi' }, _meta: { custom: 1 } });
    fake.calls.onResponse({ jsonrpc: '2.0', id: 1, result: { content: [] } }, false);
    await pending;
    const [trace] = traces.traces();
    expect(traces.phasesOf(trace)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    expect(traces.log[0].copy).toEqual({
      client: 'spec',
      server: 'peer',
      method: 'tools/call',
      era: 'legacy',
      target: 'echo',
      requestId: '1',
      transport: 'stdio',
      protocolVersion: '2025-06-18',
      traceContext: { traceparent: TRACEPARENT, tracestate: 'vendor=1' },
    });
    expect(trace).toMatchObject({ status: 'ok', durationMs: expect.any(Number) });
    expect(trace).not.toHaveProperty('error');
    expect(trace).not.toHaveProperty('errorKind');
  });

  it('fills the failure in and publishes error before asyncStart and asyncEnd, once each', async () => {
    const traces = traceRequests();
    const { calls } = table('modern', 'http://127.0.0.1:1');
    const refused = calls.send('prompts/get', { name: 'p'.repeat(300) });
    calls.onResponse({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown prompt' } }, false);
    const error = await refused.catch((caught: unknown) => caught);
    const timedOut = calls.send('tools/list', {}, { timeout: 10 });
    await expect(timedOut).rejects.toMatchObject({ kind: 'timeout' });
    const [failed, late] = traces.traces();
    expect(traces.phasesOf(failed)).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    expect(failed).toMatchObject({
      method: 'prompts/get',
      era: 'modern',
      transport: 'streamable-http',
      protocolVersion: '2026-07-28',
      status: 'error',
      errorKind: 'rpc',
      errorCode: -32602,
      durationMs: expect.any(Number),
    });
    expect(failed.error).toBe(error);
    expect(failed.error).toBeInstanceOf(McpClientError);
    expect(failed.target).toHaveLength(128);
    expect(traces.phasesOf(late)).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    expect(late).toMatchObject({ method: 'tools/list', status: 'error', errorKind: 'timeout' });
    expect(late).not.toHaveProperty('errorCode');
    expect(late).not.toHaveProperty('target');
  });

  it("names initialize's own revision, the session id of the transport, and no target for other methods", async () => {
    const traces = traceRequests();
    const { calls, transport } = table('legacy', 'http://127.0.0.1:1');
    transport.sessionId = 'session-1';
    calls
      .send('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {} })
      .catch(() => undefined);
    calls.send('resources/read', { uri: 'notes://a', name: 'not a target' }).catch(() => undefined);
    const [initialize, read] = traces.traces();
    expect(initialize).toMatchObject({ protocolVersion: '2025-11-25', sessionId: 'session-1', requestId: '1' });
    expect(read).toMatchObject({ protocolVersion: '2025-06-18', requestId: '2' });
    expect(read).not.toHaveProperty('target');
    calls.rejectAll(() => new McpClientError('transport', 'Connection closed'));
  });

  const own = { own: true, tracestate: 'from-the-caller' };
  it.each([
    ['a malformed traceparent', { traceparent: 'not-a-traceparent', tracestate: 'vendor=1' }, own],
    ['a traceparent of another version', { traceparent: TRACEPARENT.replace(/^00/, '01') }, own],
    // One pair, from one place: the caller's tracestate does not go with the trace's traceparent.
    [
      'a tracestate over 512 characters (the traceparent goes alone)',
      { traceparent: TRACEPARENT, tracestate: 'x'.repeat(513) },
      { own: true, traceparent: TRACEPARENT },
    ],
  ])('sends no more than core keeps of %s', (_name, context, expected) => {
    traceRequests();
    const { calls, transport } = table('legacy');
    injected = context;
    calls.send('tools/call', { name: 'echo', _meta: own }).catch(() => undefined);
    expect(transport.sent[0].params?._meta).toEqual(expected);
    calls.rejectAll(() => new McpClientError('transport', 'Connection closed'));
  });

  it('builds nothing while nobody subscribes: the params go out as given, the plain event as before', async () => {
    const events: McpClientRequestEvent[] = [];
    const onEvent = (event: unknown) => events.push(event as McpClientRequestEvent);
    subscribe(MCP_CLIENT_CHANNELS.request, onEvent);
    try {
      const { calls, transport } = table('legacy');
      const params = { name: 'echo' };
      const pending = calls.send('tools/call', params);
      expect(transport.sent[0].params).toBe(params);
      calls.onResponse({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } }, false);
      await expect(pending).rejects.toMatchObject({ kind: 'rpc' });
      const plain = {
        client: 'spec',
        server: 'peer',
        method: 'tools/call',
        era: 'legacy',
        status: 'error',
        errorKind: 'rpc',
        errorCode: -32603,
        durationMs: expect.any(Number),
      };
      expect(events).toEqual([plain]);
      // The same plain event while the tracing channel is subscribed too.
      traceRequests();
      const traced = calls.send('tools/call', params);
      calls.onResponse({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'boom' } }, false);
      await expect(traced).rejects.toMatchObject({ kind: 'rpc' });
      expect(events).toEqual([plain, plain]);
      expect(transport.sent[1].params).toBe(params);
    } finally {
      unsubscribe(MCP_CLIENT_CHANNELS.request, onEvent);
    }
  });
});

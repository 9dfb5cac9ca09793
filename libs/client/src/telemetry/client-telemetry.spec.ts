import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import { McpInputRefusal } from '../connection/input-responder.interface';
import { reportInput } from './client-telemetry';
import { MCP_CLIENT_CHANNELS, McpClientInputEvent, McpClientInputTrace } from './mcp-client.channels';
import { TraceRecorder, recordTraces } from './trace-recorder.fixtures-spec';

describe('reportInput: the outcome of a question, on conduit-mcp:client:input', () => {
  const scope = { client: 'c', server: 's', method: 'sampling/createMessage', era: 'legacy' as const };
  const events: McpClientInputEvent[] = [];
  const listener = (event: unknown) => events.push(event as McpClientInputEvent);
  beforeEach(() => {
    events.length = 0;
    subscribe(MCP_CLIENT_CHANNELS.input, listener);
  });
  afterEach(() => unsubscribe(MCP_CLIENT_CHANNELS.input, listener));

  it.each([
    ['refused', new McpInputRefusal(-1, 'over budget'), undefined, { status: 'refused', errorCode: -1 }],
    ['error', Object.assign(new Error('crashed'), { code: -32603 }), undefined, { status: 'error', errorCode: -32603 }],
    ['cancelled', new Error('stopped'), AbortSignal.abort(), { status: 'cancelled' }],
  ])('%s', async (_name, thrown, signal, expected) => {
    await expect(reportInput(scope, signal, () => Promise.reject(thrown))).rejects.toBe(thrown);
    expect(events).toEqual([{ ...scope, ...expected, durationMs: expect.any(Number) }]);
  });

  it('ok, with the answer passed through; nothing published once nobody listens', async () => {
    await expect(reportInput(scope, undefined, async () => ({ answer: 1 }))).resolves.toEqual({ answer: 1 });
    expect(events).toEqual([{ ...scope, status: 'ok', durationMs: expect.any(Number) }]);
    unsubscribe(MCP_CLIENT_CHANNELS.input, listener);
    await reportInput(scope, undefined, async () => ({}));
    expect(events).toHaveLength(1);
  });
});

describe('reportInput: the trace of a question, on the tracing channel conduit-mcp:client:input', () => {
  const scope = { client: 'c', server: 's', method: 'elicitation/create', era: 'legacy' as const };
  const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const store = new AsyncLocalStorage<string>();
  const start = tracingChannel<unknown, McpClientInputTrace>(MCP_CLIENT_CHANNELS.input).start;
  let traces: TraceRecorder<McpClientInputTrace>;
  beforeEach(() => {
    traces = recordTraces<McpClientInputTrace>(MCP_CLIENT_CHANNELS.input);
    start.bindStore(store, (trace) => `in ${trace.method}`);
  });
  afterEach(() => {
    start.unbindStore(store);
    traces.stop();
  });

  it("enters the stores bound to start around the answer, and carries the server's trace context", async () => {
    const seen: Array<string | undefined> = [];
    const answer = async () => {
      seen.push(store.getStore());
      await new Promise((resolve) => setTimeout(resolve, 1));
      seen.push(store.getStore());
      return { action: 'accept' };
    };
    const meta = { traceparent: TRACEPARENT, tracestate: 'srv=1', progressToken: 3 };
    await expect(reportInput(scope, undefined, answer, meta)).resolves.toEqual({ action: 'accept' });
    expect(seen).toEqual(['in elicitation/create', 'in elicitation/create']);
    expect(store.getStore()).toBeUndefined();
    const [trace] = traces.traces();
    expect(traces.phasesOf(trace)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    expect(traces.log[0].copy).toEqual({ ...scope, traceContext: { traceparent: TRACEPARENT, tracestate: 'srv=1' } });
    expect(trace).toEqual({
      ...scope,
      traceContext: { traceparent: TRACEPARENT, tracestate: 'srv=1' },
      status: 'ok',
      durationMs: expect.any(Number),
    });
  });

  it.each([
    ['refused', new McpInputRefusal(-1, 'over budget'), undefined, { status: 'refused', errorCode: -1 }],
    ['error', Object.assign(new Error('crashed'), { code: -32603 }), undefined, { status: 'error', errorCode: -32603 }],
    ['cancelled', new Error('stopped'), AbortSignal.abort(), { status: 'cancelled' }],
  ])(
    '%s: error, asyncStart, asyncEnd after the outcome, as the plain event decides it',
    async (_name, thrown, signal, expected) => {
      await expect(reportInput(scope, signal, () => Promise.reject(thrown))).rejects.toBe(thrown);
      const [trace] = traces.traces();
      expect(traces.phasesOf(trace)).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
      expect(trace).toEqual({ ...scope, traceContext: {}, ...expected, durationMs: expect.any(Number) });
    },
  );

  it('ends the synchronous part even when the answer throws at once', async () => {
    const thrown = new Error('at once');
    await expect(
      reportInput(scope, undefined, () => {
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    expect(traces.phasesOf(traces.traces()[0])).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
  });

  it.each([
    ['no _meta (a modern input round)', undefined],
    ['a malformed traceparent', { traceparent: '00-xyz', tracestate: 'srv=1' }],
    ['an all-zero trace id', { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }],
  ])('carries an empty trace context for %s', async (_name, meta) => {
    await reportInput(scope, undefined, async () => ({}), meta);
    expect(traces.traces()[0].traceContext).toEqual({});
  });

  it('publishes nothing and enters no store once nobody listens', async () => {
    start.unbindStore(store);
    traces.stop();
    let seen: string | undefined = 'not run';
    await reportInput(scope, undefined, async () => void (seen = store.getStore()), { traceparent: TRACEPARENT });
    expect(seen).toBeUndefined();
    expect(traces.log).toEqual([]);
  });
});

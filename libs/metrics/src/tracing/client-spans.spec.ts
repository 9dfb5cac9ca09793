import {
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  context,
  createTraceState,
  trace,
} from '@opentelemetry/api';
import { McpTracing } from './mcp-tracing';
import {
  PARENT_SPAN_ID,
  PARENT_TRACE_ID,
  TRACEPARENT,
  answerInput,
  clientInputTrace,
  clientRequestTrace,
  disableContextManager,
  enableContextManager,
  inMemoryTracing,
  sendRequest,
} from './tracing.fixtures-spec';

describe('McpTracing: client spans', () => {
  let otel: ReturnType<typeof inMemoryTracing>;
  let tracing: McpTracing;

  beforeAll(() => enableContextManager());
  afterAll(() => disableContextManager());

  beforeEach(() => {
    otel = inMemoryTracing();
    tracing = new McpTracing({ tracerProvider: otel.provider });
    tracing.start();
  });

  afterEach(() => tracing.stop());

  it('a request: a CLIENT span child of the caller’s span, its trace context handed to the server', async () => {
    const request = clientRequestTrace();
    await otel.tracer.startActiveSpan('user', async (user) => {
      await sendRequest(request, async () => 'result');
      user.end();
    });
    const span = otel.span('tools/call echo');
    const user = otel.span('user');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.parentSpanContext?.spanId).toBe(user.spanContext().spanId);
    expect(span.spanContext().traceId).toBe(user.spanContext().traceId);
    expect(request.traceContext).toEqual({
      traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
    });
    expect(span.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '3',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': 'session-9',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('passes the trace state on, and unsampled flags as 00', async () => {
    const request = clientRequestTrace({ method: 'prompts/get', target: 'greet' });
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: PARENT_TRACE_ID,
      spanId: PARENT_SPAN_ID,
      traceFlags: TraceFlags.NONE,
      isRemote: true,
      traceState: createTraceState('congo=t61rcWkgMzE'),
    });
    await context.with(parent, () => sendRequest(request, async () => 1));
    // The parent is not sampled: the SDK records nothing, but the trace goes on with the same decision.
    expect(otel.spans()).toEqual([]);
    expect(request.traceContext.traceparent).toMatch(new RegExp(`^00-${PARENT_TRACE_ID}-[0-9a-f]{16}-00$`));
    expect(request.traceContext.traceparent).not.toContain(PARENT_SPAN_ID);
    expect(request.traceContext.tracestate).toBe('congo=t61rcWkgMzE');
  });

  it('no valid span (no SDK, no parent): nothing is handed to the server', async () => {
    tracing.stop();
    tracing = new McpTracing({ tracerProvider: new ProxyTracerProvider() });
    tracing.start();
    const request = clientRequestTrace();
    await sendRequest(request, async () => 1);
    expect(request.traceContext).toEqual({});
  });

  it('a request the server answered with an error: error.type and rpc.response.status_code, status ERROR', async () => {
    await sendRequest(clientRequestTrace({ target: 'broken' }), async () => 1, {
      status: 'error',
      errorKind: 'rpc',
      errorCode: -32602,
    });
    const span = otel.span('tools/call broken');
    expect(span.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: '-32602' });
  });

  it('a request that failed without a code: error.type is the kind of failure', async () => {
    await sendRequest(clientRequestTrace({ method: 'tools/list', target: undefined }), async () => 1, {
      status: 'error',
      errorKind: 'timeout',
    });
    const span = otel.span('tools/list');
    expect(span.attributes['error.type']).toBe('timeout');
    expect(span.attributes['rpc.response.status_code']).toBeUndefined();
    expect(span.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'timeout' });
  });

  it('the protocol version and session id learned while the request ran are recorded at its end', async () => {
    const request = clientRequestTrace({
      method: 'initialize',
      target: undefined,
      protocolVersion: undefined,
      sessionId: undefined,
    });
    await sendRequest(request, async () => {
      request.protocolVersion = '2025-11-25';
      request.sessionId = 'fresh';
    });
    expect(otel.span('initialize').attributes).toMatchObject({
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': 'fresh',
    });
  });

  it('a question of the server: a SERVER span, child of the trace context it sent, active around the answer', async () => {
    await otel.tracer.startActiveSpan('local', async (local) => {
      await answerInput(
        clientInputTrace({ traceContext: { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE' } }),
        async () => otel.tracer.startActiveSpan('answering', (span) => span.end()),
      );
      local.end();
    });
    const span = otel.span('elicitation/create');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(PARENT_TRACE_ID);
    expect(span.parentSpanContext).toMatchObject({ spanId: PARENT_SPAN_ID, isRemote: true });
    expect(span.attributes).toEqual({ 'mcp.method.name': 'elicitation/create' });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(otel.span('answering').parentSpanContext?.spanId).toBe(span.spanContext().spanId);
  });

  it('a question without trace context (a modern input round): a child of the active span', async () => {
    await otel.tracer.startActiveSpan('call', async (call) => {
      await answerInput(clientInputTrace({ method: 'sampling/createMessage' }), async () => 1);
      call.end();
    });
    expect(otel.span('sampling/createMessage').parentSpanContext?.spanId).toBe(otel.span('call').spanContext().spanId);
  });

  it.each([
    [{ status: 'refused' as const, errorCode: -1 }, '-1', SpanStatusCode.ERROR],
    [{ status: 'refused' as const }, 'refused', SpanStatusCode.ERROR],
    [{ status: 'error' as const }, 'error', SpanStatusCode.ERROR],
    [{ status: 'cancelled' as const }, 'cancelled', SpanStatusCode.UNSET],
  ])('a question answered with %j: error.type %s', async (outcome, errorType, code) => {
    await answerInput(clientInputTrace({ method: 'roots/list' }), async () => 1, outcome);
    const span = otel.span('roots/list');
    expect(span.attributes['error.type']).toBe(errorType);
    expect(span.status.code).toBe(code);
  });
});

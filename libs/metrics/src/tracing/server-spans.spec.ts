import {
  DiagLogLevel,
  SpanKind,
  SpanStatusCode,
  Tracer,
  TracerProvider,
  context,
  diag,
  trace,
} from '@opentelemetry/api';
import { McpTracing } from './mcp-tracing';
import {
  PARENT_SPAN_ID,
  PARENT_TRACE_ID,
  TRACEPARENT,
  disableContextManager,
  enableContextManager,
  handlerTrace,
  inMemoryTracing,
  refuseRequest,
  requestTrace,
  runHandler,
  serveRequest,
  unreachedCall,
} from './tracing.fixtures-spec';

describe('McpTracing: server spans', () => {
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

  it('a tools/call: a SERVER request span, child of the active span, with the conventions’ attributes', async () => {
    await otel.tracer.startActiveSpan('caller', async (caller) => {
      await serveRequest(requestTrace(), async () => 'done', {
        status: 'ok',
        target: { kind: 'tool', name: 'echo', status: 'ok' },
      });
      caller.end();
    });
    const span = otel.span('tools/call echo');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.parentSpanContext?.spanId).toBe(otel.span('caller').spanContext().spanId);
    expect(span.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'mcp.session.id': 'session-1',
      'mcp.protocol.version': '2025-11-25',
      'jsonrpc.request.id': '7',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.instrumentationScope.name).toBe('@conduit-mcp/metrics');
  });

  it('the handler span is a child of the request span, and active around the handler', async () => {
    await serveRequest(requestTrace(), () =>
      runHandler(handlerTrace(), async () => otel.tracer.startActiveSpan('tool-work', (work) => work.end())),
    );
    const request = otel.span('tools/call');
    const handler = otel.span('execute_tool echo');
    expect(handler.kind).toBe(SpanKind.INTERNAL);
    expect(handler.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(otel.span('tool-work').parentSpanContext?.spanId).toBe(handler.spanContext().spanId);
    expect(new Set(otel.spans().map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(handler.attributes).toEqual({
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.session.id': 'session-1',
      'jsonrpc.request.id': '7',
      'conduit.mcp.handler.outcome': 'ok',
    });
  });

  it('continues the trace of the traceparent the client sent: same trace id, its span as remote parent', async () => {
    await otel.tracer.startActiveSpan('local', async (local) => {
      await serveRequest(requestTrace({ traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE' }), async () =>
        otel.tracer.startActiveSpan('inside', (inside) => inside.end()),
      );
      local.end();
    });
    const span = otel.span('tools/call');
    expect(span.spanContext().traceId).toBe(PARENT_TRACE_ID);
    expect(span.parentSpanContext).toMatchObject({ spanId: PARENT_SPAN_ID, isRemote: true });
    expect(span.spanContext().traceState?.serialize()).toBe('congo=t61rcWkgMzE');
    expect(otel.span('inside').parentSpanContext?.spanId).toBe(span.spanContext().spanId);
  });

  it('a JSON-RPC error: error.type and rpc.response.status_code the code, status ERROR with the type only', async () => {
    await serveRequest(
      requestTrace(),
      () => runHandler(handlerTrace({ name: 'broken' }), async () => undefined, { status: 'error', errorCode: -32603 }),
      { status: 'error', errorCode: -32603, target: { kind: 'tool', name: 'broken', status: 'error' } },
    );
    for (const name of ['tools/call broken', 'execute_tool broken']) {
      const span = otel.span(name);
      expect(span.attributes).toMatchObject({ 'error.type': '-32603', 'rpc.response.status_code': '-32603' });
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: '-32603' });
      expect(span.events).toEqual([]);
    }
  });

  it('a tool error (isError): error.type tool_error and status ERROR on the request and the handler', async () => {
    await serveRequest(
      requestTrace(),
      () => runHandler(handlerTrace({ name: 'refuses' }), async () => undefined, { status: 'tool_error' }),
      { status: 'ok', target: { kind: 'tool', name: 'refuses', status: 'tool_error' } },
    );
    for (const name of ['tools/call refuses', 'execute_tool refuses']) {
      expect(otel.span(name).attributes['error.type']).toBe('tool_error');
      expect(otel.span(name).status).toEqual({ code: SpanStatusCode.ERROR, message: 'tool_error' });
    }
    expect(otel.span('tools/call refuses').attributes['rpc.response.status_code']).toBeUndefined();
  });

  it('a cancelled request: error.type cancelled, status left unset', async () => {
    await serveRequest(requestTrace(), async () => undefined, { status: 'cancelled' });
    expect(otel.span('tools/call').attributes['error.type']).toBe('cancelled');
    expect(otel.span('tools/call').status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a method no route serves, refused before routing: a span named _OTHER, timed from its duration', async () => {
    const before = Date.now();
    await otel.tracer.startActiveSpan('caller', async (caller) => {
      refuseRequest(requestTrace({ method: 'no/such', routed: false }), { status: 'error', errorCode: -32601 }, 250);
      caller.end();
    });
    const span = otel.span('_OTHER');
    expect(span.attributes).toMatchObject({ 'mcp.method.name': 'no/such', 'error.type': '-32601' });
    expect(span.parentSpanContext?.spanId).toBe(otel.span('caller').spanContext().spanId);
    const [seconds, nanos] = span.duration;
    expect(seconds * 1000 + nanos / 1e6).toBeGreaterThanOrEqual(249);
    expect(span.startTime[0] * 1000 + span.startTime[1] / 1e6).toBeLessThan(before);
  });

  it('an unknown tool: the request span named tools/call, the handler span unnamed, no tool name anywhere', async () => {
    await serveRequest(
      requestTrace(),
      async () =>
        unreachedCall(handlerTrace({ name: 'no_such', unknown: true }), { status: 'error', errorCode: -32602 }),
      { status: 'error', errorCode: -32602, target: { kind: 'tool', name: 'no_such', unknown: true, status: 'error' } },
    );
    const request = otel.span('tools/call');
    const handler = otel.span('execute_tool');
    expect(handler.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(request.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(handler.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(handler.attributes['error.type']).toBe('-32602');
  });

  it('a resource: named by its template, never by its URI, which is not recorded by default', async () => {
    await serveRequest(
      requestTrace({ method: 'resources/read' }),
      () =>
        runHandler(
          handlerTrace({ kind: 'resource', name: 'file:///home/ann/notes.md', template: 'file:///{path}' }),
          async () => 1,
        ),
      {
        status: 'ok',
        target: { kind: 'resource', name: 'file:///home/ann/notes.md', template: 'file:///{path}', status: 'ok' },
      },
    );
    await serveRequest(requestTrace({ method: 'resources/read', requestId: '8' }), () =>
      runHandler(handlerTrace({ kind: 'resource', name: 'config://app', requestId: '8' }), async () => 1),
    );
    expect(
      otel
        .spans()
        .map((span) => span.name)
        .sort(),
    ).toEqual(['read_resource', 'read_resource file:///{path}', 'resources/read', 'resources/read']);
    for (const span of otel.spans()) expect(span.attributes['mcp.resource.uri']).toBeUndefined();
  });

  it('recordResourceUri: mcp.resource.uri on the request and the handler spans', async () => {
    tracing.stop();
    tracing = new McpTracing({ tracerProvider: otel.provider, recordResourceUri: true });
    tracing.start();
    const target = { kind: 'resource' as const, name: 'config://app', status: 'ok' as const };
    await serveRequest(
      requestTrace({ method: 'resources/read' }),
      () => runHandler(handlerTrace({ kind: 'resource', name: 'config://app' }), async () => 1),
      { status: 'ok', target },
    );
    expect(otel.span('resources/read').attributes['mcp.resource.uri']).toBe('config://app');
    expect(otel.span('read_resource').attributes['mcp.resource.uri']).toBe('config://app');
  });

  it('a prompt: get_prompt {name}, gen_ai.prompt.name', async () => {
    await serveRequest(
      requestTrace({ method: 'prompts/get' }),
      () => runHandler(handlerTrace({ kind: 'prompt', name: 'greet' }), async () => 1),
      { status: 'ok', target: { kind: 'prompt', name: 'greet', status: 'ok' } },
    );
    expect(otel.span('prompts/get greet').attributes['gen_ai.prompt.name']).toBe('greet');
    expect(otel.span('get_prompt greet').attributes).toMatchObject({ 'gen_ai.prompt.name': 'greet' });
    expect(otel.span('get_prompt greet').attributes['gen_ai.operation.name']).toBeUndefined();
  });

  it('a modern round that asks for input: not an error, its outcome recorded', async () => {
    await serveRequest(
      requestTrace({ era: 'modern', sessionId: undefined, protocolVersion: '2026-07-28' }),
      () =>
        runHandler(handlerTrace({ era: 'modern', sessionId: 'throw-away' }), async () => 1, {
          status: 'input_required',
        }),
      { status: 'ok', target: { kind: 'tool', name: 'echo', status: 'input_required' } },
    );
    const handler = otel.span('execute_tool echo');
    expect(handler.status.code).toBe(SpanStatusCode.UNSET);
    expect(handler.attributes['error.type']).toBeUndefined();
    expect(handler.attributes['conduit.mcp.handler.outcome']).toBe('input_required');
    // A modern request has no session: the run's throw-away id is not recorded.
    expect(handler.attributes['mcp.session.id']).toBeUndefined();
    expect(otel.span('tools/call echo').attributes['mcp.session.id']).toBeUndefined();
  });

  it('recordSessionId: false records no session id', async () => {
    tracing.stop();
    tracing = new McpTracing({ tracerProvider: otel.provider, recordSessionId: false });
    tracing.start();
    await serveRequest(requestTrace(), () => runHandler(handlerTrace(), async () => 1));
    for (const span of otel.spans()) expect(span.attributes['mcp.session.id']).toBeUndefined();
    expect(otel.spans()).toHaveLength(2);
  });

  it('stdio: network.transport pipe, no network.protocol.name', async () => {
    await serveRequest(requestTrace({ transport: 'stdio', sessionId: undefined }), async () => 1);
    expect(otel.span('tools/call').attributes).toMatchObject({ 'network.transport': 'pipe' });
    expect(otel.span('tools/call').attributes['network.protocol.name']).toBeUndefined();
  });

  it('a tracer that throws never fails the request: the route runs, the error goes to the diagnostic logger', async () => {
    tracing.stop();
    const failing: Tracer = {
      startSpan: () => {
        throw new Error('tracer down');
      },
      startActiveSpan: () => {
        throw new Error('tracer down');
      },
    };
    const provider: TracerProvider = { getTracer: () => failing };
    tracing = new McpTracing({ tracerProvider: provider });
    tracing.start();
    const logged: unknown[] = [];
    diag.setLogger(
      { error: (...args: unknown[]) => logged.push(args), warn() {}, info() {}, debug() {}, verbose() {} },
      DiagLogLevel.ERROR,
    );
    const uncaught = jest.fn();
    process.on('uncaughtException', uncaught);
    try {
      const active = context.active();
      const result = await serveRequest(requestTrace(), async () => (context.active() === active ? 'ran' : 'moved'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(result).toBe('ran');
      expect(logged.length).toBeGreaterThanOrEqual(2);
      expect(uncaught).not.toHaveBeenCalled();
    } finally {
      process.off('uncaughtException', uncaught);
      diag.disable();
    }
    expect(trace.getSpan(context.active())).toBeUndefined();
  });
});

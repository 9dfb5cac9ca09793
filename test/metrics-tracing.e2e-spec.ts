import type { AddressInfo } from 'node:net';
import { INestApplication, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { McpClient, McpClientModule, McpClients } from '@conduit-mcp/client';
import { McpCtx, McpModule, McpRequestContext, McpTool } from '@conduit-mcp/server';
import { McpTracingModule } from '@conduit-mcp/metrics';
import { RecordingHandlers } from './support/client-recording.handlers';
import { HTTP_ADAPTERS, createHttpApp } from './support/http-adapters';
import { legacyPost, openLegacySession, until } from './support/legacy-http.client';
import { MODERN, modernMeta, modernToolCall } from './support/modern-http.client';

// OpenTelemetry spans of a real server over HTTP, recorded by McpTracingModule into an in-memory SDK: the request
// span, the handler span inside it, what the tool traces inside that; the client's trace context continued.

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('e2e');

const PARENT_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';
const MODERN_META = modernMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'raw-fetch', version: '1' } });

class Tools {
  @McpTool({ description: 'Traces its own work' })
  work(): string {
    return tracer.startActiveSpan('tool-work', (span) => {
      span.end();
      return 'worked';
    });
  }

  @McpTool({ description: 'Asks the client for a name' })
  async ask(@McpCtx() ctx: McpRequestContext): Promise<string> {
    const answer = await ctx.input.elicit('who', {
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return JSON.stringify(answer);
  }

  @McpTool({ description: 'Fails' })
  broken(): string {
    throw new Error('broken on purpose');
  }
}

@Module({
  imports: [
    McpModule.forRoot({ name: 'traced', version: '1.0.0' }),
    McpTracingModule.forRoot({ tracerProvider: provider }),
  ],
  providers: [Tools],
})
class TracedServerModule {}

/** The one finished span named `name` whose `jsonrpc.request.id` is `id`, once it ended. */
function spanOf(name: string, id: string | number): Promise<ReadableSpan> {
  return until(`span ${name} of request ${id}`, () =>
    exporter.getFinishedSpans().find((s) => s.name === name && s.attributes['jsonrpc.request.id'] === String(id)),
  );
}

/** The finished span named `name` that is a child of `parent`. */
function childOf(parent: ReadableSpan, name: string): Promise<ReadableSpan> {
  return until(`span ${name} under ${parent.name}`, () =>
    exporter
      .getFinishedSpans()
      .find((s) => s.name === name && s.parentSpanContext?.spanId === parent.spanContext().spanId),
  );
}

function toolCall(id: number, name: string, meta?: Record<string, unknown>) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) },
  };
}

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});

afterAll(async () => {
  context.disable();
  trace.disable();
  await provider.shutdown();
});

describe.each(HTTP_ADAPTERS)('McpTracingModule: spans of a server over Streamable HTTP (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await createHttpApp(TracedServerModule, adapter);
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`;
  });

  beforeEach(() => exporter.reset());

  afterAll(() => app?.close());

  it('legacy: request span ⊃ handler span ⊃ the tool’s own span, one trace, the session recorded', async () => {
    const sessionId = await openLegacySession(url);
    const answer = await legacyPost(url, toolCall(11, 'work'), sessionId);
    expect(answer.json.result.content).toEqual([{ type: 'text', text: 'worked' }]);
    const request = await spanOf('tools/call work', 11);
    const handler = await childOf(request, 'execute_tool work');
    const work = await childOf(handler, 'tool-work');
    expect(request.kind).toBe(SpanKind.SERVER);
    expect(handler.kind).toBe(SpanKind.INTERNAL);
    expect(new Set([request, handler, work].map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(request.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'mcp.session.id': sessionId,
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'gen_ai.tool.name': 'work',
      'gen_ai.operation.name': 'execute_tool',
    });
    expect(handler.attributes).toMatchObject({ 'mcp.session.id': sessionId, 'gen_ai.tool.name': 'work' });
    expect(request.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('modern: the same spans, without a session', async () => {
    const answer = await modernToolCall(url, 12, 'work', { arguments: {}, _meta: MODERN_META });
    expect(answer.json.result).toMatchObject({ content: [{ type: 'text', text: 'worked' }] });
    const request = await spanOf('tools/call work', 12);
    const handler = await childOf(request, 'execute_tool work');
    await childOf(handler, 'tool-work');
    expect(request.attributes).toMatchObject({ 'mcp.protocol.version': MODERN });
    expect(request.attributes['mcp.session.id']).toBeUndefined();
    expect(handler.attributes['mcp.session.id']).toBeUndefined();
  });

  it.each(['legacy', 'modern'] as const)(
    '%s: a traceparent in params._meta is the request span’s remote parent',
    async (era) => {
      const traceContext = {
        traceparent: `00-${PARENT_TRACE_ID}-${PARENT_SPAN_ID}-01`,
        tracestate: 'congo=t61rcWkgMzE',
      };
      if (era === 'legacy') {
        const sessionId = await openLegacySession(url);
        await legacyPost(url, toolCall(13, 'work', traceContext), sessionId);
      } else {
        await modernToolCall(url, 13, 'work', { arguments: {}, _meta: { ...MODERN_META, ...traceContext } });
      }
      const request = await spanOf('tools/call work', 13);
      expect(request.spanContext().traceId).toBe(PARENT_TRACE_ID);
      expect(request.parentSpanContext).toMatchObject({ spanId: PARENT_SPAN_ID, isRemote: true });
      expect(request.spanContext().traceState?.serialize()).toBe('congo=t61rcWkgMzE');
      const work = await childOf(await childOf(request, 'execute_tool work'), 'tool-work');
      expect(work.spanContext().traceId).toBe(PARENT_TRACE_ID);
    },
  );

  it('a failing tool: status ERROR and error.type on the request and the handler spans', async () => {
    const sessionId = await openLegacySession(url);
    const answer = await legacyPost(url, toolCall(14, 'broken'), sessionId);
    const code = answer.json.error.code as number;
    const request = await spanOf('tools/call broken', 14);
    const handler = await childOf(request, 'execute_tool broken');
    for (const span of [request, handler]) {
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: String(code) });
      expect(span.attributes['error.type']).toBe(String(code));
    }
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => [s.attributes, s.status, s.events]))).not.toContain(
      'broken on purpose',
    );
  });

  it('an unknown tool: the request span is named tools/call, with error.type the code', async () => {
    const sessionId = await openLegacySession(url);
    const answer = await legacyPost(url, toolCall(15, 'no_such_tool'), sessionId);
    const request = await spanOf('tools/call', 15);
    expect(request.attributes['error.type']).toBe(String(answer.json.error.code));
    expect(request.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(exporter.getFinishedSpans().some((s) => s.name.includes('no_such_tool'))).toBe(false);
  });
});

describe.each(['legacy', 'modern'] as const)('one trace across this project’s client and server (%s era)', (era) => {
  let server: INestApplication;
  let clientApp: INestApplicationContext;
  let client: McpClient;
  let handlers: RecordingHandlers;

  beforeAll(async () => {
    // Each app records its own half, as two processes would.
    @Module({
      imports: [
        McpModule.forRoot({ name: 'traced', version: '1.0.0' }),
        McpTracingModule.forRoot({ tracerProvider: provider, client: false }),
      ],
      providers: [Tools],
    })
    class ServerHalf {}
    server = await createHttpApp(ServerHalf, 'express');
    await server.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(server.getHttpServer().address() as AddressInfo).port}/mcp`;

    @Module({
      imports: [
        McpClientModule.forRoot({
          name: 'e2e-client',
          version: '1.0.0',
          servers: [{ id: 'traced', transport: { type: 'http', url }, era }],
        }),
        McpTracingModule.forRoot({ tracerProvider: provider, server: false }),
      ],
      providers: [RecordingHandlers],
    })
    class ClientHalf {}
    clientApp = await NestFactory.createApplicationContext(ClientHalf, { logger: false });
    await clientApp.init();
    client = clientApp.get(McpClients).get('traced');
    handlers = clientApp.get(RecordingHandlers);
  });

  beforeEach(() => exporter.reset());

  afterAll(async () => {
    await clientApp?.close();
    await server?.close();
  });

  /** The finished span named `name` of kind `kind`. */
  const spanNamed = (name: string, kind: SpanKind) =>
    until(`${SpanKind[kind]} span ${name}`, () =>
      exporter.getFinishedSpans().find((s) => s.name === name && s.kind === kind),
    );

  it('user span ⊃ client span ⊃ server request span ⊃ handler span ⊃ the tool’s span, one trace id', async () => {
    const result = await tracer.startActiveSpan('user', async (span) => {
      try {
        return await client.callTool('work', {});
      } finally {
        span.end();
      }
    });
    expect(result.content).toEqual([{ type: 'text', text: 'worked' }]);
    const user = await spanNamed('user', SpanKind.INTERNAL);
    const sent = await spanNamed('tools/call work', SpanKind.CLIENT);
    const served = await spanNamed('tools/call work', SpanKind.SERVER);
    expect(sent.parentSpanContext?.spanId).toBe(user.spanContext().spanId);
    expect(served.parentSpanContext).toMatchObject({ spanId: sent.spanContext().spanId, isRemote: true });
    const work = await childOf(await childOf(served, 'execute_tool work'), 'tool-work');
    const traceIds = new Set([user, sent, served, work].map((s) => s.spanContext().traceId));
    expect(traceIds).toEqual(new Set([user.spanContext().traceId]));
    expect(sent.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'work',
      'network.transport': 'tcp',
      'mcp.protocol.version': era === 'legacy' ? '2025-11-25' : MODERN,
    });
    expect(sent.attributes['jsonrpc.request.id']).toBe(served.attributes['jsonrpc.request.id']);
  });

  it('a question of the server: the client’s input span is active around its handler, in the same trace', async () => {
    handlers.elicitationAnswer = () =>
      tracer.startActiveSpan('answering', (span) => {
        span.end();
        return { action: 'accept', content: { name: 'Ann' } };
      });
    const result = await tracer.startActiveSpan('user', async (span) => {
      try {
        return await client.callTool('ask', {});
      } finally {
        span.end();
      }
    });
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('Ann') }]);
    const input = await spanNamed('elicitation/create', SpanKind.SERVER);
    const answering = await childOf(input, 'answering');
    const user = await spanNamed('user', SpanKind.INTERNAL);
    expect(input.attributes).toEqual({ 'mcp.method.name': 'elicitation/create' });
    expect(answering.spanContext().traceId).toBe(user.spanContext().traceId);
  });
});

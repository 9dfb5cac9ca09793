import { context, trace } from '@opentelemetry/api';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpTracing } from './mcp-tracing';
import { McpTracingModule } from './mcp-tracing.module';
import {
  ALL_SUB_CHANNELS,
  answerInput,
  clientInputTrace,
  clientRequestTrace,
  disableContextManager,
  enableContextManager,
  handlerTrace,
  inMemoryTracing,
  requestTrace,
  runHandler,
  sendRequest,
  serveRequest,
} from './tracing.fixtures-spec';

/** One of each trace, server and client, published as their publishers do. */
async function publishOneOfEach(): Promise<void> {
  await serveRequest(requestTrace(), () => runHandler(handlerTrace(), async () => 1));
  await sendRequest(clientRequestTrace(), async () => 1);
  await answerInput(clientInputTrace({ method: 'roots/list' }), async () => 1);
}

const attached = () => ALL_SUB_CHANNELS.map((channel) => channel.hasSubscribers);

describe('McpTracing', () => {
  let otel: ReturnType<typeof inMemoryTracing>;
  let tracing: McpTracing | undefined;

  beforeAll(() => enableContextManager());
  afterAll(() => disableContextManager());
  beforeEach(() => (otel = inMemoryTracing()));
  afterEach(() => tracing?.stop());

  it('records nothing before start(); start() twice attaches once', async () => {
    tracing = new McpTracing({ tracerProvider: otel.provider });
    await publishOneOfEach();
    expect(otel.spans()).toEqual([]);
    tracing.start();
    tracing.start();
    await publishOneOfEach();
    expect(otel.spans().map((span) => span.name)).toEqual([
      'execute_tool echo',
      'tools/call',
      'tools/call echo',
      'roots/list',
    ]);
  });

  it('stop() unbinds and unsubscribes everything; stop() again does nothing; it can start again', async () => {
    // Nobody else listens in this process: every suite detaches what it attaches.
    expect(attached().some(Boolean)).toBe(false);
    tracing = new McpTracing({ tracerProvider: otel.provider });
    tracing.start();
    expect(tracing.started).toBe(true);
    expect(attached().some(Boolean)).toBe(true);
    tracing.stop();
    tracing.stop();
    expect(tracing.started).toBe(false);
    expect(attached().some(Boolean)).toBe(false);
    const inRoute = await serveRequest(requestTrace(), async () => trace.getSpan(context.active()));
    expect(inRoute).toBeUndefined();
    await publishOneOfEach();
    expect(otel.spans()).toEqual([]);
    tracing.start();
    await publishOneOfEach();
    expect(otel.spans()).toHaveLength(4);
  });

  it('server: false records client spans only; client: false server spans only', async () => {
    tracing = new McpTracing({ tracerProvider: otel.provider, server: false });
    tracing.start();
    await publishOneOfEach();
    expect(otel.spans().map((span) => span.name)).toEqual(['tools/call echo', 'roots/list']);
    tracing.stop();
    otel.exporter.reset();
    tracing = new McpTracing({ tracerProvider: otel.provider, client: false });
    tracing.start();
    await publishOneOfEach();
    expect(otel.spans().map((span) => span.name)).toEqual(['execute_tool echo', 'tools/call']);
  });

  it('uses the global tracer provider by default, even one registered after it was made', async () => {
    tracing = new McpTracing();
    trace.setGlobalTracerProvider(otel.provider);
    try {
      tracing.start();
      await serveRequest(requestTrace(), async () => 1);
      expect(otel.spans().map((span) => span.name)).toEqual(['tools/call']);
    } finally {
      trace.disable();
    }
  });

  it('names its tracer after this package, with the version of its package.json', async () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));
    tracing = new McpTracing({ tracerProvider: otel.provider });
    tracing.start();
    await serveRequest(requestTrace(), async () => 1);
    expect(otel.span('tools/call').instrumentationScope).toMatchObject({
      name: '@conduit-mcp/metrics',
      version: manifest.version,
    });
  });
});

describe('McpTracingModule', () => {
  beforeAll(() => enableContextManager());
  afterAll(() => disableContextManager());

  it('forRoot: McpTracing started when the app initializes, stopped when it closes', async () => {
    const otel = inMemoryTracing();
    const moduleRef = await Test.createTestingModule({
      imports: [McpTracingModule.forRoot({ tracerProvider: otel.provider })],
    }).compile();
    const tracing = moduleRef.get(McpTracing);
    expect(tracing.started).toBe(false);
    await moduleRef.init();
    expect(tracing.started).toBe(true);
    await serveRequest(requestTrace(), async () => 1);
    await moduleRef.close();
    expect(tracing.started).toBe(false);
    await serveRequest(requestTrace(), async () => 1);
    expect(otel.spans().map((span) => span.name)).toEqual(['tools/call']);
  });

  it('forRootAsync: options from a factory of injected providers', async () => {
    const otel = inMemoryTracing();
    @Injectable()
    class Telemetry {
      readonly tracerProvider = otel.provider;
    }
    @Module({ providers: [Telemetry], exports: [Telemetry] })
    class TelemetryModule {}
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpTracingModule.forRootAsync({
          imports: [TelemetryModule],
          inject: [Telemetry],
          useFactory: (telemetry: Telemetry) => ({ tracerProvider: telemetry.tracerProvider, client: false }),
        }),
      ],
    }).compile();
    await moduleRef.init();
    try {
      await serveRequest(requestTrace(), async () => 1);
      await sendRequest(clientRequestTrace(), async () => 1);
      expect(otel.spans().map((span) => span.name)).toEqual(['tools/call']);
    } finally {
      await moduleRef.close();
    }
  });
});

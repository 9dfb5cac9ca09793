import { ConsoleLogger, Module } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import { RawClient } from '../../../../test/support/raw-client';
import {
  MCP_CHANNELS,
  McpArgs,
  McpCtx,
  McpModule,
  McpRequestContext,
  McpRequestEvent,
  McpRequestTrace,
  McpServer,
  McpTool,
} from '../index';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};
/** A store bound to the request's `start`: what an OpenTelemetry subscriber does with the request's span. */
const requestSpan = new AsyncLocalStorage<string>();
const seenInHandler: Array<string | undefined> = [];

class Tools {
  @McpTool({ description: 'Answers at once' })
  echo(@McpArgs() args: { text?: string }) {
    seenInHandler.push(requestSpan.getStore());
    return args.text ?? 'echo';
  }

  @McpTool({ description: 'Fails' })
  broken(): string {
    throw new Error('broken');
  }

  @McpTool({ description: 'A tool error' })
  refuses() {
    return { content: [{ type: 'text', text: 'no' }], isError: true };
  }

  @McpTool({ description: 'Asks for a name' })
  async ask(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('who', {
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return JSON.stringify(answer);
  }
}

/** Records each sub-channel of the request tracing channel, with a copy of the trace at that step. */
function watchRequests() {
  const steps: Array<{ step: string; trace: McpRequestTrace; copy: McpRequestTrace }> = [];
  const on = (step: string) => (trace: unknown) =>
    steps.push({ step, trace: trace as McpRequestTrace, copy: { ...(trace as McpRequestTrace) } });
  const subscribers = {
    start: on('start'),
    end: on('end'),
    asyncStart: on('asyncStart'),
    asyncEnd: on('asyncEnd'),
    error: on('error'),
  };
  const channel = tracingChannel<unknown, McpRequestTrace>(MCP_CHANNELS.request);
  channel.subscribe(subscribers);
  channel.start.bindStore(requestSpan, (trace) => `span of ${(trace as McpRequestTrace).requestId}`);
  return {
    steps,
    ended: () => steps.filter((s) => s.step === 'asyncEnd').map((s) => s.trace),
    orderOf: (requestId: string) => steps.filter((s) => s.trace.requestId === requestId).map((s) => s.step),
    stop: () => {
      channel.unsubscribe(subscribers);
      channel.start.unbindStore(requestSpan);
    },
  };
}

describe('request traces (tracing channel conduit-mcp:request)', () => {
  let moduleRef: TestingModule;
  let server: McpServer;
  let client: RawClient;
  let watcher: ReturnType<typeof watchRequests> | undefined;
  let loggerError: jest.SpyInstance;

  beforeAll(async () => {
    loggerError = jest.spyOn(ConsoleLogger.prototype, 'error').mockImplementation(() => undefined);
    @Module({ imports: [McpModule.forRoot({ name: 'traced', version: '1.0.0', http: false })], providers: [Tools] })
    class TracedModule {}
    moduleRef = await Test.createTestingModule({ imports: [TracedModule] }).compile();
    await moduleRef.init();
    server = moduleRef.get(McpServer);
  });

  beforeEach(async () => {
    seenInHandler.length = 0;
    client = RawClient.connect(server);
    await client.initialize({ elicitation: {} });
  });

  afterEach(async () => {
    watcher?.stop();
    watcher = undefined;
    await client.close();
  });

  afterAll(async () => {
    loggerError.mockRestore();
    await moduleRef.close();
  });

  it('a legacy tools/call: start (stores entered around the handler), end, asyncStart, asyncEnd; target filled', async () => {
    watcher = watchRequests();
    const response = await client.request('tools/call', {
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: { traceparent: PARENT, tracestate: 'congo=t61rcWkgMzE' },
    });
    const id = String(response.id);
    expect(watcher.orderOf(id)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    expect(seenInHandler).toEqual([`span of ${id}`]);
    const [start] = watcher.steps.filter((s) => s.trace.requestId === id);
    expect(start.copy).toEqual({
      server: 'traced',
      method: 'tools/call',
      routed: true,
      era: 'legacy',
      protocolVersion: '2025-11-25',
      transport: 'memory',
      requestId: id,
      sessionId: expect.any(String),
      traceparent: PARENT,
      tracestate: 'congo=t61rcWkgMzE',
    });
    expect(watcher.ended().find((t) => t.requestId === id)).toMatchObject({
      target: { kind: 'tool', name: 'echo', status: 'ok' },
      status: 'ok',
      durationMs: expect.any(Number),
    });
  });

  it('error, tool error and unknown tool: the request and its target say how it ended', async () => {
    watcher = watchRequests();
    const broken = await client.request('tools/call', { name: 'broken' });
    const refuses = await client.request('tools/call', { name: 'refuses' });
    const unknown = await client.request('tools/call', { name: 'no_such_tool' });
    const byId = (response: Record<string, unknown>) =>
      watcher!.ended().find((t) => t.requestId === String(response.id));
    expect(byId(broken)).toMatchObject({
      status: 'error',
      errorCode: -32603,
      target: { kind: 'tool', name: 'broken', status: 'error' },
    });
    expect(watcher.orderOf(String(broken.id))).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    expect(byId(refuses)).toMatchObject({ status: 'ok', target: { name: 'refuses', status: 'tool_error' } });
    expect(byId(unknown)).toMatchObject({
      status: 'error',
      errorCode: -32602,
      target: { kind: 'tool', name: 'no_such_tool', unknown: true, status: 'error' },
    });
  });

  it('a method the server does not know: routed false, start and end back to back, then its end', async () => {
    watcher = watchRequests();
    const response = await client.request('no/such\u0007method', {});
    expect(response.error).toMatchObject({ code: -32601 });
    const id = String(response.id);
    expect(watcher.orderOf(id)).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    expect(watcher.ended().find((t) => t.requestId === id)).toMatchObject({
      method: 'no/suchmethod',
      routed: false,
      status: 'error',
      errorCode: -32601,
    });
  });

  it('a modern round that asks for input: era modern, revision 2026-07-28, no session, target input_required', async () => {
    watcher = watchRequests();
    const response = await client.request('tools/call', { name: 'ask', _meta: MODERN_META });
    expect(response.result).toMatchObject({ resultType: 'input_required' });
    expect(watcher.ended().find((t) => t.requestId === String(response.id))).toEqual(
      expect.objectContaining({
        era: 'modern',
        protocolVersion: '2026-07-28',
        status: 'ok',
        target: { kind: 'tool', name: 'ask', status: 'input_required' },
      }),
    );
    expect(watcher.ended().find((t) => t.requestId === String(response.id))?.sessionId).toBeUndefined();
  });

  it('a malformed traceparent is not passed on', async () => {
    watcher = watchRequests();
    const response = await client.request('tools/call', {
      name: 'echo',
      _meta: { traceparent: '00-zz-00f067aa0ba902b7-01', tracestate: 'a=b' },
    });
    const trace = watcher.ended().find((t) => t.requestId === String(response.id))!;
    expect(trace.traceparent).toBeUndefined();
    expect(trace.tracestate).toBeUndefined();
  });

  it('the plain request event is unchanged beside the tracing channel', async () => {
    watcher = watchRequests();
    const events: McpRequestEvent[] = [];
    const onEvent = (event: unknown) => events.push(event as McpRequestEvent);
    subscribe(MCP_CHANNELS.request, onEvent);
    try {
      await client.request('tools/call', { name: 'echo' });
    } finally {
      unsubscribe(MCP_CHANNELS.request, onEvent);
    }
    expect(events).toEqual([
      {
        server: 'traced',
        method: 'tools/call',
        status: 'ok',
        errorCode: undefined,
        durationMs: expect.any(Number),
        transport: 'memory',
        era: 'legacy',
      },
    ]);
  });

  it('with nobody subscribed, nothing is traced and the handler runs outside any bound store', async () => {
    const response = await client.request('tools/call', { name: 'echo' });
    expect(response.result).toBeDefined();
    expect(seenInHandler).toEqual([undefined]);
  });
});

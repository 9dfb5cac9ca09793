import {
  ArgumentsHost,
  CallHandler,
  CanActivate,
  Catch,
  ConsoleLogger,
  ExecutionContext,
  Injectable,
  ExceptionFilter,
  Module,
  NestInterceptor,
  UseFilters,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { Test, TestingModule } from '@nestjs/testing';
import { ErrorCode, McpError } from '@conduit-mcp/core';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Channel, subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import { lastValueFrom, of, tap, throwError } from 'rxjs';
import { RawClient } from '../../../../test/support/raw-client';
import { McpInterceptorsConsumer } from '../invocation/mcp-interceptors.consumer';
import { ExecutionContextHost } from '../invocation/nest-internals';
import {
  MCP_CHANNELS,
  McpArgs,
  McpCtx,
  McpHandlerEvent,
  McpHandlerKind,
  McpHandlerTrace,
  McpModule,
  McpPrompt,
  McpRequestContext,
  McpResource,
  McpServer,
  McpTelemetryInterceptor,
  McpTool,
  McpToolError,
} from '../index';

/** What ran, in order: the telemetry's `start`/`asyncEnd`, the interceptors, the handler. */
const steps: string[] = [];
/** A store a tracing subscriber binds to `start`: what an OpenTelemetry subscriber does with its active span. */
const spans = new AsyncLocalStorage<string>();

@Injectable()
class AppInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    steps.push(`app interceptor (span ${spans.getStore() ?? 'none'})`);
    return next.handle().pipe(tap(() => steps.push('app interceptor after')));
  }
}

class MethodInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    steps.push('method interceptor');
    return next.handle();
  }
}

class Refuse implements CanActivate {
  canActivate() {
    steps.push('guard');
    return false;
  }
}

class Oops extends Error {}

@Catch(Oops)
class Recover implements ExceptionFilter {
  catch(_error: Oops, _host: ArgumentsHost) {
    return 'recovered by the filter';
  }
}

const INPUT = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } as const;

@Injectable()
class Handlers {
  @McpTool({ name: 'plain' })
  plain() {
    steps.push(`handler (span ${spans.getStore() ?? 'none'})`);
    return 'plain';
  }

  @McpTool({ name: 'layered' })
  @UseInterceptors(MethodInterceptor)
  async layered() {
    await Promise.resolve();
    steps.push(`handler (span ${spans.getStore() ?? 'none'})`);
    return 'layered';
  }

  @McpTool({ name: 'tool_error' })
  toolError() {
    throw new McpToolError('the model should see this');
  }

  @McpTool({ name: 'is_error' })
  isError() {
    return { content: [{ type: 'text', text: 'no' }], isError: true };
  }

  @McpTool({ name: 'mcp_error' })
  mcpError() {
    throw new McpError(ErrorCode.InvalidParams, 'bad idea');
  }

  @McpTool({ name: 'crash' })
  crash() {
    throw new Error('database password is hunter2');
  }

  @McpTool({ name: 'refused' })
  @UseGuards(Refuse)
  refused() {
    steps.push('handler');
    return 'never';
  }

  @McpTool({ name: 'filtered' })
  @UseFilters(Recover)
  filtered() {
    throw new Oops('oops');
  }

  @McpTool({ name: 'typed', input: INPUT })
  typed(@McpArgs() args: { n: number }) {
    return String(args.n);
  }

  @McpTool({ name: 'bad_output', output: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } })
  badOutput() {
    return { n: 'not a number' };
  }

  @McpTool({ name: 'wait' })
  wait(@McpCtx() ctx: McpRequestContext) {
    return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
  }

  @McpTool({ name: 'ask' })
  async ask(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('name', {
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return String(answer.content?.name);
  }

  @McpResource({ uri: 'memo://{id}' })
  memo(@McpArgs() { id }: { id: string }) {
    return `memo ${id}`;
  }

  @McpResource({ uri: 'static://readme' })
  readme() {
    return 'read me';
  }

  @McpPrompt({ name: 'greet' })
  greet() {
    return 'hello';
  }
}

const MODERN = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

type Step = 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error';

/** Subscribes to the tracing channel and the plain channel of `kind`, recording what each publishes. */
function listen(kind: McpHandlerKind) {
  const traced: Array<{ step: Step; context: McpHandlerTrace; copy: McpHandlerTrace }> = [];
  const events: McpHandlerEvent[] = [];
  const on = (step: Step) => (context: McpHandlerTrace) => {
    traced.push({ step, context, copy: { ...context } });
    if (step === 'start' || step === 'asyncEnd') steps.push(`telemetry ${step}`);
  };
  const subscribers = {
    start: on('start'),
    end: on('end'),
    asyncStart: on('asyncStart'),
    asyncEnd: on('asyncEnd'),
    error: on('error'),
  };
  const onEvent = (event: unknown) => events.push(event as McpHandlerEvent);
  const channel = tracingChannel<unknown, McpHandlerTrace>(MCP_CHANNELS[kind]);
  channel.subscribe(subscribers);
  subscribe(MCP_CHANNELS[kind], onEvent);
  return {
    traced,
    events,
    order: () => traced.map(({ step }) => step),
    /** The run's context object, as it was when the run ended (one object for every step). */
    context: () => {
      expect(new Set(traced.map(({ context }) => context)).size).toBe(1);
      return traced[traced.length - 1].context;
    },
    stop: () => {
      channel.unsubscribe(subscribers);
      unsubscribe(MCP_CHANNELS[kind], onEvent);
    },
  };
}

describe('McpTelemetryInterceptor', () => {
  let moduleRef: TestingModule;
  let server: McpServer;
  let client: RawClient;
  const listening: Array<ReturnType<typeof listen>> = [];
  const watch = (kind: McpHandlerKind) => {
    const listener = listen(kind);
    listening.push(listener);
    return listener;
  };

  let loggerError: jest.SpyInstance;

  beforeAll(async () => {
    // Nest logs the errors of failing handlers: expected here, not printed.
    loggerError = jest.spyOn(ConsoleLogger.prototype, 'error').mockImplementation(() => undefined);
    @Module({
      imports: [McpModule.forRoot({ name: 'traced', version: '1.0.0', http: false })],
      providers: [Handlers, { provide: APP_INTERCEPTOR, useClass: AppInterceptor }],
    })
    class TracedModule {}
    moduleRef = await Test.createTestingModule({ imports: [TracedModule] }).compile();
    await moduleRef.init();
    server = moduleRef.get(McpServer);
  });

  beforeEach(async () => {
    steps.length = 0;
    client = RawClient.connect(server);
    await client.initialize({ elicitation: {} });
  });

  afterEach(async () => {
    listening.splice(0).forEach((listener) => listener.stop());
    await client.close();
  });

  afterAll(async () => {
    loggerError.mockRestore();
    await moduleRef.close();
  });

  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.request('tools/call', { name, arguments: args });

  it('tool ok: start, end, asyncStart, asyncEnd on one context, filled when the run ends; the plain event too', async () => {
    const tool = watch('tool');
    const response = await call('plain');
    expect(response.result).toEqual({ content: [{ type: 'text', text: 'plain' }] });
    expect(tool.order()).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    const known = {
      server: 'traced',
      kind: 'tool',
      name: 'plain',
      era: 'legacy',
      requestId: String(response.id),
      sessionId: expect.any(String),
    };
    // At start: what is known then, no outcome yet.
    expect(tool.traced[0].copy).toEqual({ ...known, template: undefined });
    expect(tool.context()).toEqual({
      ...known,
      template: undefined,
      status: 'ok',
      errorCode: undefined,
      durationMs: expect.any(Number),
      result: { content: [{ type: 'text', text: 'plain' }] },
    });
    expect(tool.events).toEqual([
      { server: 'traced', name: 'plain', status: 'ok', errorCode: undefined, durationMs: expect.any(Number) },
    ]);
  });

  it('tool_error: an McpToolError and an isError result are results, with status tool_error', async () => {
    const tool = watch('tool');
    await call('tool_error');
    expect(tool.order()).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    expect(tool.context()).toMatchObject({
      name: 'tool_error',
      status: 'tool_error',
      result: { content: [{ type: 'text', text: 'the model should see this' }], isError: true },
    });
    tool.traced.length = 0;
    await call('is_error');
    expect(tool.context()).toMatchObject({ name: 'is_error', status: 'tool_error' });
    expect(tool.events.map((e) => [e.name, e.status])).toEqual([
      ['tool_error', 'tool_error'],
      ['is_error', 'tool_error'],
    ]);
  });

  it('error: the McpError code; error is published before asyncStart, with what the handler threw', async () => {
    const tool = watch('tool');
    expect((await call('mcp_error')).error).toMatchObject({ code: -32602 });
    expect(tool.order()).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    expect(tool.context()).toMatchObject({ status: 'error', errorCode: -32602, error: expect.any(McpError) });
    expect(tool.traced.find(({ step }) => step === 'error')!.copy).toMatchObject({ status: 'error' });
    tool.traced.length = 0;
    expect((await call('crash')).error).toMatchObject({ code: -32603 });
    // The handler's own error (the client only sees -32603 Internal error).
    expect(tool.context()).toMatchObject({ status: 'error', errorCode: -32603 });
    expect((tool.context().error as Error).message).toBe('database password is hunter2');
    expect(tool.events.map((e) => [e.name, e.status, e.errorCode])).toEqual([
      ['mcp_error', 'error', -32602],
      ['crash', 'error', -32603],
    ]);
  });

  it('cancelled: a request cancelled while its handler runs', async () => {
    const tool = watch('tool');
    await client.send({ jsonrpc: '2.0', id: 'long', method: 'tools/call', params: { name: 'wait' } });
    await until(() => tool.order().includes('start'));
    expect(tool.order()).toEqual(['start', 'end']);
    await client.notify('notifications/cancelled', { requestId: 'long' });
    await until(() => tool.order().includes('asyncEnd'));
    expect(tool.order()).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    expect(tool.context()).toMatchObject({ name: 'wait', requestId: 'long', status: 'cancelled' });
    expect(tool.events).toEqual([expect.objectContaining({ name: 'wait', status: 'cancelled' })]);
  });

  it('input_required: a modern-era round that asks the client', async () => {
    const tool = watch('tool');
    const response = await client.request('tools/call', { name: 'ask', _meta: MODERN });
    expect(response.result).toMatchObject({ resultType: 'input_required' });
    expect(tool.context()).toMatchObject({ name: 'ask', era: 'modern', status: 'input_required' });
    expect(tool.events).toEqual([expect.objectContaining({ name: 'ask', status: 'input_required' })]);
  });

  it('resource: the URI read and its template; a static resource has none', async () => {
    const resource = watch('resource');
    await client.request('resources/read', { uri: 'memo://7' });
    expect(resource.order()).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    expect(resource.traced[0].copy).toMatchObject({ kind: 'resource', name: 'memo://7', template: 'memo://{id}' });
    expect(resource.context()).toMatchObject({ server: 'traced', status: 'ok', durationMs: expect.any(Number) });
    await client.request('resources/read', { uri: 'static://readme' });
    expect(resource.events).toEqual([
      expect.objectContaining({ name: 'memo://7', template: 'memo://{id}', status: 'ok' }),
      expect.objectContaining({ name: 'static://readme', template: undefined, status: 'ok' }),
    ]);
  });

  it('prompt', async () => {
    const prompt = watch('prompt');
    await client.request('prompts/get', { name: 'greet' });
    expect(prompt.order()).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    expect(prompt.context()).toMatchObject({ kind: 'prompt', name: 'greet', status: 'ok' });
    expect(prompt.events).toEqual([expect.objectContaining({ name: 'greet', status: 'ok' })]);
  });

  it('a store bound to start is entered around the handler and the other interceptors (a parent span)', async () => {
    const start = tracingChannel<unknown, McpHandlerTrace>(MCP_CHANNELS.tool).start;
    start.bindStore(spans, (context) => `span of ${context.name}`);
    try {
      await call('plain');
      await call('layered');
    } finally {
      start.unbindStore(spans);
    }
    expect(steps).toEqual([
      'app interceptor (span span of plain)',
      'handler (span span of plain)',
      'app interceptor after',
      'app interceptor (span span of layered)',
      'method interceptor',
      'handler (span span of layered)',
      'app interceptor after',
    ]);
  });

  it('runs first: before the app’s interceptor and the method’s; ends once the call’s outcome is known', async () => {
    watch('tool');
    await call('layered');
    expect(steps).toEqual([
      'telemetry start',
      'app interceptor (span none)',
      'method interceptor',
      'handler (span none)',
      'app interceptor after',
      'telemetry asyncEnd',
    ]);
  });

  it('an unknown tool, resource or prompt yields an error event, on the plain and the tracing channel', async () => {
    const [tool, resource, prompt] = (['tool', 'resource', 'prompt'] as const).map(watch);
    expect((await call('no_such\u202etool')).error).toMatchObject({ code: -32602 });
    expect((await client.request('resources/read', { uri: 'nothing://here' })).error).toMatchObject({
      code: -32002,
    });
    expect((await client.request('prompts/get', { name: 'no_such_prompt' })).error).toMatchObject({ code: -32602 });
    expect(tool.events).toEqual([
      {
        server: 'traced',
        name: 'no_suchtool',
        unknown: true,
        status: 'error',
        errorCode: -32602,
        durationMs: expect.any(Number),
      },
    ]);
    expect(resource.events).toEqual([
      expect.objectContaining({ name: 'nothing://here', unknown: true, status: 'error', errorCode: -32002 }),
    ]);
    expect(prompt.events).toEqual([
      expect.objectContaining({ name: 'no_such_prompt', unknown: true, status: 'error', errorCode: -32602 }),
    ]);
    for (const listener of [tool, resource, prompt]) {
      expect(listener.order()).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    }
    expect(tool.context()).toMatchObject({
      kind: 'tool',
      name: 'no_suchtool',
      unknown: true,
      era: 'legacy',
      status: 'error',
    });
    // No handler ran, nor any interceptor.
    expect(steps).toEqual(Array(3).fill(['telemetry start', 'telemetry asyncEnd']).flat());
  });

  it('keeps the statuses of calls the interceptor does not see end: refusals, invalid arguments, filters, output', async () => {
    const tool = watch('tool');
    expect((await call('refused')).error).toMatchObject({ code: -32000 });
    expect(steps).toEqual(['guard', 'telemetry start', 'telemetry asyncEnd']);
    expect((await call('typed', { n: 'x' })).result).toMatchObject({ isError: true });
    expect((await call('bad_output')).error).toMatchObject({ code: -32603 });
    tool.traced.length = 0;
    expect((await call('filtered')).result).toMatchObject({ content: [{ text: 'recovered by the filter' }] });
    expect(tool.events.map((e) => [e.name, e.status, e.errorCode])).toEqual([
      ['refused', 'error', -32000],
      ['typed', 'tool_error', undefined],
      ['bad_output', 'error', -32603],
      ['filtered', 'ok', undefined],
    ]);
    // The filter's recovery is the outcome; what the handler threw stays out of an ok run.
    expect(tool.context()).toMatchObject({ status: 'ok', result: expect.any(Object) });
    expect(tool.context().error).toBeUndefined();
  });

  it('with nobody listening: nothing published, and a handler without interceptors runs without any chain', async () => {
    @Module({ imports: [McpModule.forRoot({ name: 'quiet', version: '1.0.0', http: false })], providers: [Handlers] })
    class QuietModule {}
    const quiet = await (await Test.createTestingModule({ imports: [QuietModule] }).compile()).init();
    const quietClient = RawClient.connect(quiet.get(McpServer));
    await quietClient.initialize();
    const chain = jest.spyOn(McpInterceptorsConsumer.prototype, 'intercept');
    const telemetry = jest.spyOn(McpTelemetryInterceptor.prototype, 'intercept');
    const publish = jest.spyOn(Channel.prototype, 'publish');
    const runStores = jest.spyOn(Channel.prototype, 'runStores');
    try {
      const request = () => quietClient.request('tools/call', { name: 'plain' });
      expect((await request()).result).toEqual({ content: [{ type: 'text', text: 'plain' }] });
      expect((await quietClient.request('tools/call', { name: 'nope' })).error).toMatchObject({ code: -32602 });
      expect(chain).not.toHaveBeenCalled();
      expect(telemetry).not.toHaveBeenCalled();
      expect(publish).not.toHaveBeenCalled();
      expect(runStores).not.toHaveBeenCalled();
      // Someone subscribes: the next call enters the chain, the interceptor first.
      const tool = watch('tool');
      await request();
      expect(chain).toHaveBeenCalledTimes(1);
      expect(chain.mock.calls[0][0][0]).toBeInstanceOf(McpTelemetryInterceptor);
      expect(tool.order()).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
      tool.stop();
      chain.mockClear();
      await request();
      expect(chain).not.toHaveBeenCalled();
    } finally {
      [chain, telemetry, publish, runStores].forEach((spy) => spy.mockRestore());
      await quietClient.close();
      await quiet.close();
    }
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 200) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('McpTelemetryInterceptor on its own (no method awaits the call)', () => {
  const context = (method: keyof Handlers) => {
    const ctx = {
      server: 'alone',
      era: 'legacy',
      requestId: 'r1',
      sessionId: 's1',
      cancelled: false,
      target: undefined,
    };
    const host = new ExecutionContextHost([{}, ctx], Handlers, Handlers.prototype[method] as never);
    host.setType('mcp');
    return host;
  };
  const outcome = (source: () => ReturnType<CallHandler['handle']>, method: keyof Handlers = 'plain') =>
    lastValueFrom(new McpTelemetryInterceptor().intercept(context(method), { handle: source })).catch(
      (error: unknown) => error,
    );
  let tool: ReturnType<typeof listen>;
  beforeEach(() => (tool = listen('tool')));
  afterEach(() => tool.stop());

  it('settles the run itself from what the pipeline gave, after end — even a pipeline settling at once', async () => {
    expect(await outcome(() => of('x'))).toBe('x');
    expect(tool.order()).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    expect(tool.context()).toMatchObject({
      server: 'alone',
      name: 'plain',
      requestId: 'r1',
      status: 'ok',
      result: 'x',
    });
    tool.traced.length = 0;
    await outcome(() => throwError(() => new McpToolError('no')), 'toolError');
    expect(tool.order()).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    expect(tool.context()).toMatchObject({ name: 'tool_error', status: 'tool_error' });
    tool.traced.length = 0;
    await outcome(() => throwError(() => new Error('hunter2')), 'crash');
    expect(tool.context()).toMatchObject({ name: 'crash', status: 'error', errorCode: -32603 });
    expect(tool.events.map((e) => [e.server, e.name, e.status])).toEqual([
      ['alone', 'plain', 'ok'],
      ['alone', 'tool_error', 'tool_error'],
      ['alone', 'crash', 'error'],
    ]);
  });

  it('passes anything but an MCP tool, resource or prompt handler through', async () => {
    const host = context('plain');
    host.setType('http');
    const handle = jest.fn(() => of('through'));
    expect(await lastValueFrom(new McpTelemetryInterceptor().intercept(host, { handle }))).toBe('through');
    expect(tool.traced).toEqual([]);
  });
});

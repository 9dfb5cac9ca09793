import {
  ArgumentsHost,
  CallHandler,
  CanActivate,
  Catch,
  ExceptionFilter,
  ExecutionContext,
  Inject,
  Injectable,
  Module,
  NestInterceptor,
  PipeTransform,
  Scope,
  SetMetadata,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import { APP_GUARD, APP_PIPE, REQUEST, Reflector } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { map, of } from 'rxjs';
import { RawClient } from '../../../test/support/raw-client';
import {
  InjectMcpServer,
  McpArgs,
  McpCtx,
  McpExecutionContext,
  McpModule,
  McpRequestContext,
  McpServer,
  McpTool,
  McpToolError,
  McpResource,
  McpPrompt,
  MCP_CHANNELS,
} from './index';

class Refuse implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return (
      context.getType<string>() === 'mcp' &&
      McpExecutionContext.create(context).getContext().meta.token === 'open-sesame'
    );
  }
}

class Shout implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle().pipe(map((value: string) => `${value}!`));
  }
}

class Trim implements PipeTransform {
  transform(value: unknown) {
    return value && typeof value === 'object' && 'text' in value
      ? { ...value, text: String(value.text).trim() }
      : value;
  }
}

class Oops extends Error {}

@Catch(Oops)
class OopsFilter implements ExceptionFilter {
  catch(_error: Oops, _host: ArgumentsHost) {
    return 'recovered by the filter';
  }
}

@Injectable({ scope: Scope.REQUEST })
class PerRequest {
  static created = 0;
  readonly serial = ++PerRequest.created;
  constructor(@Inject(REQUEST) readonly ctx: McpRequestContext) {}

  @McpTool({ name: 'scoped' })
  scoped() {
    return `instance ${this.serial} for request ${String(this.ctx.requestId)}`;
  }
}

const ECHO_INPUT = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;

@Injectable()
class Tools {
  @McpTool({ name: 'secret' })
  @UseGuards(Refuse)
  secret() {
    return 'the secret';
  }

  @McpTool({ name: 'shout', input: ECHO_INPUT })
  @UseInterceptors(Shout)
  @UsePipes(Trim)
  shout(@McpArgs() args: { text: string }) {
    return args.text;
  }

  @McpTool({ name: 'crash' })
  crash() {
    throw new Error('database password is hunter2');
  }

  @McpTool({ name: 'filtered' })
  @UseFilters(OopsFilter)
  filtered() {
    throw new Oops();
  }

  @McpTool({ name: 'tool_error' })
  toolError() {
    throw new McpToolError('the model should see this');
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
  ask(@McpCtx() ctx: McpRequestContext) {
    return ctx.input.roots('roots').then((r) => JSON.stringify(r));
  }

  @McpResource({ uri: 'memo://{id}' })
  memo(@McpArgs() { id }: { id: string }) {
    return `memo ${id}`;
  }

  @McpPrompt({ name: 'p1' }) p1() {
    return 'one';
  }
  @McpPrompt({ name: 'p2' }) p2() {
    return 'two';
  }
  @McpPrompt({ name: 'p3' }) p3() {
    return 'three';
  }
}

async function serve(...providers: Array<new (...args: never[]) => unknown>) {
  @Module({ imports: [McpModule.forRoot({ name: 'unit', version: '1.0.0', http: false, pageSize: 2 })], providers })
  class UnitModule {}
  const moduleRef = await Test.createTestingModule({ imports: [UnitModule] }).compile();
  const app = await moduleRef.init();
  return { app, server: app.get(McpServer) };
}

describe('McpModule over an in-memory transport', () => {
  let app: Awaited<ReturnType<typeof serve>>['app'];
  let server: McpServer;
  let client: RawClient;

  beforeAll(async () => {
    ({ app, server } = await serve(Tools, PerRequest));
  });

  beforeEach(async () => {
    client = RawClient.connect(server);
    await client.initialize({ roots: {} });
  });

  afterEach(() => client.close());
  afterAll(() => app.close());

  const call = (name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
    client.request('tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) });

  it('hides a tool its guard refuses from tools/list and refuses its call; the guard sees the MCP context', async () => {
    const listed = await client.request('tools/list');
    expect((listed.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).not.toContain('secret');
    expect((await call('secret')).error).toMatchObject({ code: -32000 });
    expect((await call('secret', {}, { token: 'open-sesame' })).result).toMatchObject({
      content: [{ type: 'text', text: 'the secret' }],
    });
  });

  it('lists what each caller may see, request after request (pages are cached per guard outcome)', async () => {
    const all = async (meta?: Record<string, unknown>) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = (
          await client.request('tools/list', { ...(cursor ? { cursor } : {}), ...(meta ? { _meta: meta } : {}) })
        ).result as {
          tools: Array<{ name: string }>;
          nextCursor?: string;
        };
        seen.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor);
      return seen;
    };
    for (let round = 0; round < 2; round++) {
      expect(await all()).not.toContain('secret');
      expect(await all({ token: 'open-sesame' })).toContain('secret');
    }
    server.setToolEnabled('shout', false);
    expect(await all()).not.toContain('shout');
    server.setToolEnabled('shout', true);
    expect(await all()).toContain('shout');
  });

  it('runs pipes and interceptors around the handler', async () => {
    expect((await call('shout', { text: '  hello  ' })).result).toEqual({
      content: [{ type: 'text', text: 'hello!' }],
    });
  });

  it('turns a crash into -32603 without internals', async () => {
    const response = await call('crash');
    expect(response.error).toEqual({ code: -32603, message: 'Internal error' });
    expect(JSON.stringify(response)).not.toContain('hunter2');
  });

  it('lets an exception filter recover', async () => {
    expect((await call('filtered')).result).toEqual({ content: [{ type: 'text', text: 'recovered by the filter' }] });
  });

  it('reports McpToolError as a tool error and bad structured output as -32603', async () => {
    expect((await call('tool_error')).result).toEqual({
      content: [{ type: 'text', text: 'the model should see this' }],
      isError: true,
    });
    expect((await call('bad_output')).error).toMatchObject({ code: -32603 });
  });

  it('resolves request-scoped providers per call, with the MCP context as the request', async () => {
    const first = (await call('scoped')).result as { content: Array<{ text: string }> };
    const second = (await call('scoped')).result as { content: Array<{ text: string }> };
    expect(first.content[0].text).toMatch(/^instance \d+ for request \d+$/);
    expect(first.content[0].text).not.toBe(second.content[0].text);
  });

  it('paginates lists with an opaque cursor and refuses a forged one', async () => {
    const page1 = (await client.request('prompts/list')).result as {
      prompts: Array<{ name: string }>;
      nextCursor: string;
    };
    expect(page1.prompts.map((p) => p.name)).toEqual(['p1', 'p2']);
    const page2 = (await client.request('prompts/list', { cursor: page1.nextCursor })).result as Record<
      string,
      unknown
    >;
    expect(page2).toEqual({ prompts: [expect.objectContaining({ name: 'p3' })] });
    expect((await client.request('prompts/list', { cursor: 'forged' })).error).toMatchObject({ code: -32602 });
  });

  it('answers malformed messages with -32600 and ignores unknown notifications and stray responses', async () => {
    await client.send({ jsonrpc: '2.0', id: 'x', method: 42 });
    expect(await client.waitFor((m) => m.id === 'x')).toMatchObject({ error: { code: -32600 } });
    await client.notify('notifications/unknown');
    await client.send({ jsonrpc: '2.0', id: 'nobody-asked', result: {} });
    expect((await client.request('ping')).result).toEqual({});
  });

  it('refuses an invalid log level with -32602', async () => {
    expect((await client.request('logging/setLevel', { level: 'loud' })).error).toMatchObject({ code: -32602 });
  });

  it('cancels a request: the handler is aborted, no response is sent, telemetry records it', async () => {
    const events: unknown[] = [];
    const listener = (event: unknown) => events.push(event);
    subscribe(MCP_CHANNELS.cancelled, listener);
    try {
      await client.send({ jsonrpc: '2.0', id: 'long', method: 'tools/call', params: { name: 'wait' } });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await client.notify('notifications/cancelled', { requestId: 'long', reason: 'bored\u202e' });
      expect((await client.request('ping')).result).toEqual({});
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(client.received.filter((m) => m.id === 'long')).toEqual([]);
      expect(events).toEqual([{ server: 'unit', requestId: 'long', reason: 'bored', found: true }]);
    } finally {
      unsubscribe(MCP_CHANNELS.cancelled, listener);
    }
  });

  it('refuses a second request with an id already in flight', async () => {
    await client.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'wait' } });
    const second = await client.request('ping', undefined, 'dup');
    expect(second.error).toMatchObject({ code: -32600 });
    await client.notify('notifications/cancelled', { requestId: 'dup' });
  });

  it('publishes request and tool telemetry with sanitized client-supplied names', async () => {
    const requests: Array<Record<string, unknown>> = [];
    const tools: Array<Record<string, unknown>> = [];
    const others: Array<Record<string, unknown>> = [];
    const onRequest = (event: unknown) => requests.push(event as Record<string, unknown>);
    const onTool = (event: unknown) => tools.push(event as Record<string, unknown>);
    const onOther = (event: unknown) => others.push(event as Record<string, unknown>);
    subscribe(MCP_CHANNELS.request, onRequest);
    subscribe(MCP_CHANNELS.tool, onTool);
    subscribe(MCP_CHANNELS.resource, onOther);
    subscribe(MCP_CHANNELS.prompt, onOther);
    try {
      await client.request('resources/read', { uri: 'memo://7\u202e' });
      await client.request('prompts/get', { name: 'p1' });
      expect(others).toEqual([
        expect.objectContaining({ server: 'unit', name: 'memo://7', template: 'memo://{id}', status: 'ok' }),
        expect.objectContaining({ server: 'unit', name: 'p1', status: 'ok' }),
      ]);
      requests.length = 0;
      await call('shout', { text: 'x' });
      await call('tool_error');
      await client.request('evil/\u0007method\u2028');
      expect(tools).toEqual([
        expect.objectContaining({ server: 'unit', name: 'shout', status: 'ok', durationMs: expect.any(Number) }),
        expect.objectContaining({ name: 'tool_error', status: 'tool_error' }),
      ]);
      expect(requests.map((e) => [e.method, e.status, e.errorCode])).toEqual([
        ['tools/call', 'ok', undefined],
        ['tools/call', 'ok', undefined],
        ['evil/method', 'error', -32601],
      ]);
      expect(requests[0]).toMatchObject({ server: 'unit', transport: 'memory', era: 'legacy' });
    } finally {
      unsubscribe(MCP_CHANNELS.request, onRequest);
      unsubscribe(MCP_CHANNELS.tool, onTool);
      unsubscribe(MCP_CHANNELS.resource, onOther);
      unsubscribe(MCP_CHANNELS.prompt, onOther);
    }
  });

  it('asks the client for roots on the request stream and awaits the answer', async () => {
    const pending = call('ask');
    const question = await client.waitFor((m) => m.method === 'roots/list');
    await client.send({ jsonrpc: '2.0', id: question.id, result: { roots: [{ uri: 'file:///tmp' }] } });
    expect(((await pending).result as { content: Array<{ text: string }> }).content[0].text).toBe(
      '{"roots":[{"uri":"file:///tmp"}]}',
    );
  });

  it('tells clients when a list changes', async () => {
    expect(server.setToolEnabled('shout', false)).toBe(true);
    await client.waitFor((m) => m.method === 'notifications/tools/list_changed');
    expect((await call('shout', { text: 'x' })).error).toMatchObject({ code: -32602 });
    server.setToolEnabled('shout', true);
  });
});

describe('declarations checked at start-up', () => {
  it.each([
    [
      'a duplicate tool name',
      () => {
        @Injectable()
        class Twice {
          @McpTool({ name: 'same' }) a() {}
          @McpTool({ name: 'same' }) b() {}
        }
        return Twice;
      },
      /Twice\.b: duplicate tool "same", already declared by Twice\.a/,
    ],
    [
      'a tool name outside the allowed characters',
      () => {
        @Injectable()
        class BadName {
          @McpTool({ name: 'has space' }) a() {}
        }
        return BadName;
      },
      /BadName\.a: tool name "has space"/,
    ],
    [
      'a task support that is not one of the three',
      () => {
        @Injectable()
        class BadTask {
          @McpTool({ name: 'job', task: 'sometimes' as never }) a() {}
        }
        return BadTask;
      },
      /BadTask\.a: task must be 'forbidden', 'optional' or 'required', not sometimes/,
    ],
    [
      'a tool that starts its task itself but may not run as one',
      () => {
        @Injectable()
        class NoTask {
          @McpTool({ name: 'job', taskStart: 'handler' }) a() {}
        }
        return NoTask;
      },
      /NoTask\.a: taskStart: 'handler' needs task: 'optional' or 'required'/,
    ],
    [
      'a malformed URI template',
      () => {
        @Injectable()
        class BadTemplate {
          @McpResource({ uri: 'x://{unclosed' }) a() {}
        }
        return BadTemplate;
      },
      /BadTemplate\.a: /,
    ],
  ])('refuses %s, naming the class and method', async (_label, declare, message) => {
    await expect(serve(declare())).rejects.toThrow(message);
  });
});

describe('several servers in one app', () => {
  @Injectable()
  class Split {
    @McpTool({ name: 'only_a', server: 'a' }) a() {
      return 'a';
    }
    @McpTool({ name: 'shared' }) both() {
      return 'both';
    }
  }

  @Injectable()
  class NeedsB {
    constructor(@InjectMcpServer('b') readonly b: McpServer) {}
  }

  it('keeps each server to its own tools and injects them by name', async () => {
    @Module({ imports: [McpModule.forRoot({ name: 'a', version: '1', http: false })] })
    class A {}
    @Module({
      imports: [McpModule.forRoot({ name: 'b', version: '1', http: false })],
      providers: [NeedsB],
      exports: [NeedsB],
    })
    class B {}
    const moduleRef = await Test.createTestingModule({ imports: [A, B], providers: [Split] }).compile();
    await moduleRef.init();
    const b = moduleRef.get(NeedsB).b;
    expect(b.name).toBe('b');
    const clientB = RawClient.connect(b);
    await clientB.initialize();
    const tools = ((await clientB.request('tools/list')).result as { tools: Array<{ name: string }> }).tools;
    expect(tools.map((t) => t.name)).toEqual(['shared']);
    await clientB.close();
    await moduleRef.close();
  });
});

describe('McpModule.forRootAsync', () => {
  @Injectable()
  class Hello {
    @McpTool({ name: 'hello' }) hello() {
      return 'hello';
    }
  }

  @Injectable()
  class NeedsAsync {
    constructor(@InjectMcpServer('async') readonly server: McpServer) {}
  }

  it('takes its options from a factory and registers the named server', async () => {
    @Module({
      imports: [
        McpModule.forRootAsync({
          name: 'async',
          useFactory: async () => ({ name: 'async', version: '2.0.0', instructions: 'from a factory', http: false }),
        }),
      ],
      providers: [Hello, NeedsAsync],
    })
    class AsyncModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AsyncModule] }).compile();
    await moduleRef.init();
    const client = RawClient.connect(moduleRef.get(NeedsAsync).server);
    const init = (await client.initialize()).result as Record<string, unknown>;
    expect(init).toMatchObject({
      serverInfo: { name: 'async', version: '2.0.0' },
      instructions: 'from a factory',
      capabilities: { tools: {} },
    });
    await client.close();
    await moduleRef.close();
  });
});

describe('questions to the client', () => {
  @Injectable()
  class Asks {
    @McpTool({ name: 'nested_form' })
    nested(@McpCtx() ctx: McpRequestContext) {
      return ctx.input.elicit('form', {
        message: 'Where?',
        requestedSchema: {
          type: 'object',
          properties: { address: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      });
    }

    @McpTool({ name: 'sample' })
    sample(@McpCtx() ctx: McpRequestContext) {
      return ctx.input.sample('s', { messages: [], maxTokens: 1 }).then(() => 'sampled');
    }
  }

  it('refuses a nested elicitation form schema as a server bug (-32603), and sampling a client that lacks it', async () => {
    const { app, server } = await serve(Asks);
    const client = RawClient.connect(server);
    await client.initialize({ elicitation: {} });
    expect((await client.request('tools/call', { name: 'nested_form' })).error).toEqual({
      code: -32603,
      message: 'Internal error',
    });
    expect((await client.request('tools/call', { name: 'sample' })).error).toMatchObject({
      code: -32600,
      message: 'The client does not support sampling',
    });
    expect(
      client.received.filter((m) => m.method === 'elicitation/create' || m.method === 'sampling/createMessage'),
    ).toEqual([]);
    await client.close();
    await app.close();
  });
});

describe('a global guard (APP_GUARD)', () => {
  it('filters lists and calls of tools that have no guard of their own', async () => {
    @Injectable()
    class OnlyWithToken implements CanActivate {
      canActivate(context: ExecutionContext): boolean {
        return McpExecutionContext.create(context).getContext().meta.token === 'open-sesame';
      }
    }
    @Injectable()
    class Open {
      @McpTool({ name: 'open' })
      open() {
        return 'open';
      }
    }
    @Module({
      imports: [McpModule.forRoot({ name: 'global-guard', version: '1.0.0', http: false })],
      providers: [Open, { provide: APP_GUARD, useClass: OnlyWithToken }],
    })
    class GlobalGuardModule {}
    const app = await (await Test.createTestingModule({ imports: [GlobalGuardModule] }).compile()).init();
    const client = RawClient.connect(app.get(McpServer));
    try {
      await client.initialize();
      const names = async (meta?: Record<string, unknown>) =>
        (
          (await client.request('tools/list', meta ? { _meta: meta } : {})).result as { tools: Array<{ name: string }> }
        ).tools.map((t) => t.name);
      expect(await names()).toEqual([]);
      expect(await names({ token: 'open-sesame' })).toEqual(['open']);
      expect(await names()).toEqual([]);
      expect((await client.request('tools/call', { name: 'open', arguments: {} })).error).toMatchObject({
        code: -32000,
      });
    } finally {
      client.close();
      await app.close();
    }
  });
});

describe('handlers with and without pipes', () => {
  const ROLE = 'test:role';

  @Injectable()
  class RoleGuard implements CanActivate {
    constructor(private readonly reflector: Reflector) {}
    canActivate(context: ExecutionContext): boolean {
      const role = this.reflector.get<string>(ROLE, context.getHandler());
      return role !== undefined && McpExecutionContext.create(context).getContext().meta.role === role;
    }
  }

  class NameTag implements NestInterceptor {
    intercept(context: ExecutionContext, next: CallHandler) {
      return next.handle().pipe(map((value: string) => `${context.getHandler().name}: ${value}`));
    }
  }

  class Upper implements PipeTransform {
    transform(value: unknown) {
      return value && typeof value === 'object' && 'text' in value
        ? { ...value, text: String(value.text).toUpperCase() }
        : value;
    }
  }

  @Injectable()
  class AsyncRoleGuard implements CanActivate {
    canActivate(context: ExecutionContext): Promise<boolean> {
      return Promise.resolve(McpExecutionContext.create(context).getContext().meta.role === 'admin');
    }
  }

  @Injectable()
  class ObservableRoleGuard implements CanActivate {
    canActivate(context: ExecutionContext) {
      return of(McpExecutionContext.create(context).getContext().meta.role === 'admin');
    }
  }

  @Injectable()
  class Handlers {
    @McpTool({ name: 'async_guards', input: ECHO_INPUT })
    @UseGuards(AsyncRoleGuard, ObservableRoleGuard)
    asyncGuards(@McpArgs() args: { text: string }) {
      return of('first', `last ${args.text}`);
    }

    @McpTool({ name: 'tagged', input: ECHO_INPUT })
    @SetMetadata(ROLE, 'admin')
    @UseGuards(RoleGuard)
    @UseInterceptors(NameTag)
    tagged(@McpArgs() args: { text: string }) {
      return args.text;
    }

    @McpTool({ name: 'ordered', input: ECHO_INPUT })
    ordered(@McpCtx() ctx: McpRequestContext, @McpArgs() args: { text: string }) {
      return `${ctx.method} ${args.text}`;
    }

    @McpTool({ name: 'param_pipe', input: ECHO_INPUT })
    paramPipe(@McpArgs(Upper) args: { text: string }) {
      return args.text;
    }
  }

  async function start(extra: object[] = []) {
    @Module({
      imports: [McpModule.forRoot({ name: 'pipes', version: '1.0.0', http: false })],
      providers: [Handlers, RoleGuard, AsyncRoleGuard, ObservableRoleGuard, ...(extra as never[])],
    })
    class PipesModule {}
    const app = await (await Test.createTestingModule({ imports: [PipesModule] }).compile()).init();
    const client = RawClient.connect(app.get(McpServer));
    await client.initialize();
    const text = async (name: string, meta?: Record<string, unknown>) => {
      const response = await client.request('tools/call', {
        name,
        arguments: { text: 'hi' },
        ...(meta ? { _meta: meta } : {}),
      });
      return response.error ?? (response.result as { content: Array<{ text: string }> }).content[0].text;
    };
    return { app, client, text };
  }

  it('gives guards and interceptors the method’s metadata and name, and each parameter its value', async () => {
    const { app, client, text } = await start();
    try {
      expect(await text('tagged', { role: 'admin' })).toBe('tagged: hi');
      expect(await text('tagged', { role: 'guest' })).toMatchObject({ code: -32000 });
      expect(await text('ordered')).toBe('tools/call hi');
      expect(await text('param_pipe')).toBe('HI');
      expect(await text('async_guards', { role: 'admin' })).toBe('last hi');
      expect(await text('async_guards', { role: 'guest' })).toMatchObject({ code: -32000 });
    } finally {
      client.close();
      await app.close();
    }
  });

  it('runs a global pipe (APP_PIPE) on every handler', async () => {
    const { app, client, text } = await start([{ provide: APP_PIPE, useClass: Upper }]);
    try {
      expect(await text('ordered')).toBe('tools/call HI');
      expect(await text('tagged', { role: 'admin' })).toBe('tagged: HI');
    } finally {
      client.close();
      await app.close();
    }
  });
});

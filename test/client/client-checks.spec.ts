import {
  ArgumentMetadata,
  CallHandler,
  CanActivate,
  ExecutionContext,
  Injectable,
  Logger,
  Module,
  NestInterceptor,
  PipeTransform,
  UseGuards,
  UseInterceptors,
  UsePipes,
  ValidationPipe,
} from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsInt } from 'class-validator';
import { Test, TestingModule } from '@nestjs/testing';
import { tap } from 'rxjs';
import {
  InputBudgetGuard,
  McpClientExecutionContext,
  McpClientModule,
  McpClientModuleOptions,
  McpClientNotificationContext,
  McpInputContext,
  McpInputRefusal,
  McpInputSituation,
  McpRateLimit,
  OnElicitation,
  OnNotification,
  OnRoots,
  OnSampling,
  SamplingOptions,
  SamplingRequestGuard,
} from '../../libs/client/src/index';
import { McpClientResponder } from '../../libs/client/src/responder/mcp-client.responder';

/** What ran, in order, across the checks and the handlers of one test. */
const trail: string[] = [];

@Injectable()
class TrailGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const client = McpClientExecutionContext.create(context);
    trail.push(`guard:${client.getMethod()}:${client.getContext().serverId}`);
    return client.getContext().serverId !== 'denied';
  }
}

@Injectable()
class TrailInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    trail.push('interceptor:before');
    return next.handle().pipe(tap(() => trail.push('interceptor:after')));
  }
}

@Injectable()
class UpperCaseFirstMessagePipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata) {
    if (metadata.data !== 'params') return value;
    trail.push(`pipe:maxTokens=${(value as { maxTokens: number }).maxTokens}`);
    const params = value as { messages: Array<{ content: { text: string } }> };
    const [first, ...rest] = params.messages;
    return {
      ...params,
      messages: [{ ...first, content: { ...first.content, text: first.content.text.toUpperCase() } }, ...rest],
    };
  }
}

@Injectable()
class Questions {
  @OnSampling({ servers: ['srv', 'denied'] })
  @UseGuards(TrailGuard)
  @UseInterceptors(TrailInterceptor)
  @UsePipes(UpperCaseFirstMessagePipe)
  sample(params: { maxTokens: number; messages: Array<{ content: { text: string } }> }, ctx: McpInputContext) {
    trail.push(`handler:${params.messages[0].content.text}:${params.maxTokens}:${ctx.method}`);
    return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' };
  }

  @OnElicitation({ modes: ['url'] })
  @UseGuards(TrailGuard)
  elicit(params: { url: string }, ctx: McpInputContext) {
    trail.push(`handler:${params.url}:${ctx.host}:${String(ctx.originMismatch)}`);
    return { action: 'accept' };
  }

  @OnRoots()
  roots(params: unknown, ctx: McpInputContext) {
    trail.push(`handler:${JSON.stringify(params)}:${ctx.method}`);
    return { roots: [{ uri: 'file:///work/a/../b' }, { uri: 'https://example.com/' }] };
  }

  @OnNotification('notifications/tools/list_changed')
  changed(params: Record<string, unknown>, ctx: McpClientNotificationContext) {
    trail.push(`notification:${ctx.method}:${JSON.stringify(params)}`);
  }
}

@Injectable()
class NoModel {
  @OnSampling({ servers: ['other'] })
  sample() {
    return { role: 'assistant', content: { type: 'text', text: 'x' } };
  }
}

const SAMPLING = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 100_000 };

const situation = (serverId = 'srv', era: 'legacy' | 'modern' = 'modern'): McpInputSituation => ({
  client: 'checks-test',
  serverId,
  era,
  assigns: {},
  relatedRequestId: undefined,
  signal: new AbortController().signal,
  callsInFlight: 1,
  origin: 'https://mcp.example.com',
});

describe('Client safety checks as Nest enhancers', () => {
  const modules: TestingModule[] = [];
  let logs: string[];

  beforeEach(() => {
    trail.length = 0;
    logs = [];
    for (const level of ['log', 'warn'] as const)
      jest
        .spyOn(Logger.prototype, level)
        .mockImplementation((...args: unknown[]) => void logs.push(`${level}: ${String(args[0])}`));
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all(modules.splice(0).map((moduleRef) => moduleRef.close()));
  });

  async function responder(
    options: Partial<McpClientModuleOptions> = {},
    extra: Array<new (...args: never[]) => object> = [],
  ) {
    @Module({
      imports: [McpClientModule.forRoot({ name: 'checks-test', servers: [], ...options })],
      providers: [Questions, ...extra],
    })
    class App {}
    const moduleRef = await Test.createTestingModule({ imports: [App] }).compile();
    await moduleRef.init();
    modules.push(moduleRef);
    return moduleRef.get(McpClientResponder);
  }

  const refusalOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as McpInputRefusal,
    );

  it('runs, in order: the budget and request checks, the app guard and interceptor, the params pipe then the app pipe, the handler, the answer check', async () => {
    const answers = await responder();
    const result = await answers.answer('sampling/createMessage', SAMPLING, situation());
    // SamplingParamsPipe clamped maxTokens (4096) before the app's pipe saw it; the answer check kept what it checks.
    expect(trail).toEqual([
      'guard:sampling/createMessage:srv',
      'interceptor:before',
      'pipe:maxTokens=4096',
      'handler:HI:4096:sampling/createMessage',
      'interceptor:after',
    ]);
    expect(result).toMatchObject({ role: 'assistant', model: 'm' });
  });

  it('a request refused by SamplingRequestGuard never reaches the app guard or the handler (-32602)', async () => {
    const answers = await responder();
    const refusal = await refusalOf(
      answers.answer('sampling/createMessage', { messages: 'no', maxTokens: 1 }, situation()),
    );
    expect(refusal).toBeInstanceOf(McpInputRefusal);
    expect(refusal).toMatchObject({ code: -32602, message: 'messages must be an array' });
    expect(trail).toEqual([]);
  });

  it('an answer refused by SamplingResultInterceptor is -32603', async () => {
    const answers = await responder({}, [NoModel]);
    const refusal = await refusalOf(answers.answer('sampling/createMessage', SAMPLING, situation('other')));
    expect(refusal).toMatchObject({ code: -32603, message: 'sampling result model must be a string' });
  });

  it('an app guard that says no refuses sampling with rejectionCode (-1) and other questions with -32000', async () => {
    const answers = await responder();
    expect(await refusalOf(answers.answer('sampling/createMessage', SAMPLING, situation('denied')))).toMatchObject({
      code: -1,
      message: 'sampling/createMessage refused by a guard of this client',
    });
    const url = { mode: 'url', message: 'go', url: 'https://mcp.example.com/x', elicitationId: 'e' };
    expect(await refusalOf(answers.answer('elicitation/create', url, situation('denied')))).toMatchObject({
      code: -32000,
    });
    expect(trail.filter((step) => step.startsWith('handler'))).toEqual([]);
  });

  it('elicitation: the request guard refuses an undeclared mode (-32602); the context interceptor fills the URL facts', async () => {
    const answers = await responder();
    const form = { message: 'name?', requestedSchema: { type: 'object', properties: {} } };
    expect(await refusalOf(answers.answer('elicitation/create', form, situation()))).toMatchObject({
      code: -32602,
      message: 'elicitation mode "form" is not supported',
    });
    const url = { mode: 'url', message: 'go', url: 'HTTPS://MCP.example.com/consent', elicitationId: 'e' };
    await expect(answers.answer('elicitation/create', url, situation('srv', 'legacy'))).resolves.toEqual({
      action: 'accept',
    });
    expect(trail).toEqual([
      'guard:elicitation/create:srv',
      'handler:https://mcp.example.com/consent:mcp.example.com:false',
    ]);
  });

  it('roots: the handler gets ({}, ctx) and LocalRootsInterceptor sends only local file roots', async () => {
    const answers = await responder();
    await expect(answers.answer('roots/list', { ignored: true }, situation())).resolves.toEqual({
      roots: [{ uri: 'file:///work/b' }],
    });
    expect(trail).toEqual(['handler:{}:roots/list']);
  });

  it('notifications: the handler gets (params, ctx) with the method in ctx.method', async () => {
    const answers = await responder();
    answers.notify(
      'notifications/tools/list_changed',
      { a: 1 },
      { client: 'checks-test', serverId: 'srv', era: 'legacy' },
    );
    await answers.drain();
    expect(trail).toEqual(['notification:notifications/tools/list_changed:{"a":1}']);
  });

  it('a subclass named in the checks option replaces a built-in check, its hooks used, and the start-up log says so', async () => {
    @Injectable()
    class OneQuestionBudget extends InputBudgetGuard {
      protected getLimit(): McpRateLimit {
        return { rate: 0.001, burst: 1 };
      }
    }
    const answers = await responder({ checks: { inputBudget: OneQuestionBudget } });
    await answers.answer('sampling/createMessage', SAMPLING, situation());
    expect(await refusalOf(answers.answer('sampling/createMessage', SAMPLING, situation()))).toMatchObject({
      code: -1,
      message: 'Too many requests for input from this server',
    });
    expect(logs).toContain(
      'log: Built-in check InputBudgetGuard (checks.inputBudget) is replaced by OneQuestionBudget',
    );
  });

  it('a provider override of a built-in check is used, and logged at start-up', async () => {
    @Injectable()
    class NoToolLoops extends SamplingRequestGuard {
      protected getOptions(ctx: McpInputContext): SamplingOptions {
        return { ...super.getOptions(ctx), maxToolIterations: 0 };
      }
    }
    @Module({ imports: [McpClientModule.forRoot({ name: 'checks-test', servers: [] })], providers: [Questions] })
    class App {}
    const moduleRef = await Test.createTestingModule({ imports: [App] })
      .overrideProvider(SamplingRequestGuard)
      .useClass(NoToolLoops)
      .compile();
    await moduleRef.init();
    modules.push(moduleRef);
    const toolTurn = {
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] }],
      maxTokens: 10,
    };
    expect(
      await refusalOf(moduleRef.get(McpClientResponder).answer('sampling/createMessage', toolTurn, situation())),
    ).toMatchObject({
      code: -1,
    });
    expect(logs).toContain('log: Built-in check SamplingRequestGuard is provided by NoToolLoops (provider override)');
  });

  it('checks: false disables a built-in check, with a start-up warning; nothing is lost by leaving a decorator out', async () => {
    const answers = await responder({ checks: { samplingResult: false } }, [NoModel]);
    expect(logs).toContain(
      'warn: Built-in check SamplingResultInterceptor (checks.samplingResult) is disabled by the checks option',
    );
    // The answer without a model, refused -32603 above, now goes through unchecked.
    await expect(answers.answer('sampling/createMessage', SAMPLING, situation('other'))).resolves.toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'x' },
    });
  });

  it('a ValidationPipe on a DTO-typed params argument runs, and its refusal is -32602 with the reasons', async () => {
    class SamplingDto {
      @IsArray()
      @ArrayMaxSize(1)
      messages!: unknown[];

      @IsInt()
      maxTokens!: number;
    }
    @Injectable()
    class Validated {
      @OnSampling({ servers: ['validated'] })
      @UsePipes(new ValidationPipe({ validateCustomDecorators: true, transform: true }))
      sample(params: SamplingDto) {
        trail.push(`handler:${params instanceof SamplingDto}`);
        return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' };
      }
    }
    const answers = await responder({}, [Validated]);
    await answers.answer('sampling/createMessage', SAMPLING, situation('validated'));
    expect(trail).toEqual(['handler:true']);
    const two = { ...SAMPLING, messages: [...SAMPLING.messages, ...SAMPLING.messages] };
    expect(await refusalOf(answers.answer('sampling/createMessage', two, situation('validated')))).toMatchObject({
      code: -32602,
      message: 'sampling/createMessage params refused: messages must contain no more than 1 elements',
    });
  });

  it('refuses at start-up an unknown check name, and a replacement that does not play the role', async () => {
    await expect(responder({ checks: { samplingBudget: false } as never })).rejects.toThrow(
      /unknown check "samplingBudget" in the checks option \(known: inputBudget, /,
    );
    @Injectable()
    class NotAnInterceptor {}
    await expect(responder({ checks: { localRoots: NotAnInterceptor as never } })).rejects.toThrow(
      'McpClientModule: checks.localRoots (NotAnInterceptor) must implement intercept()',
    );
  });

  it('McpClientExecutionContext refuses a context of another type', () => {
    const http = { getType: () => 'http' } as unknown as ExecutionContext;
    expect(() => McpClientExecutionContext.create(http)).toThrow('Not an MCP client execution context');
  });
});

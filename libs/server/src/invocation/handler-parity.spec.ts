import {
  ArgumentMetadata,
  ArgumentsHost,
  BadRequestException,
  CallHandler,
  CanActivate,
  Catch,
  ConflictException,
  ConsoleLogger,
  ExceptionFilter,
  ExecutionContext,
  HttpException,
  ImATeapotException,
  Injectable,
  NestInterceptor,
  NotFoundException,
  PipeTransform,
  SetMetadata,
  Type,
  UnauthorizedException,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import {
  APP_FILTER,
  APP_GUARD,
  APP_INTERCEPTOR,
  APP_PIPE,
  DiscoveryModule,
  DiscoveryService,
  ExternalContextCreator,
} from '@nestjs/core';
import { Test, TestingModule } from '@nestjs/testing';
import { AsyncLocalStorage } from 'node:async_hooks';
import { tracingChannel } from 'node:diagnostics_channel';
import { EMPTY, Observable, catchError, map, of, retry, tap, throwError } from 'rxjs';
import { McpRequestContext } from '../context/mcp-request-context';
import { McpArgs, McpCtx } from '../decorators/mcp-params.decorator';
import { McpTool } from '../decorators/mcp-tool.decorator';
import { MCP_CONTEXT_TYPE, MCP_PARAMS_METADATA } from '../mcp.constants';
import { MCP_CHANNELS, McpHandlerTrace } from '../telemetry/mcp.channels';
import { McpTelemetryInterceptor } from '../telemetry/mcp-telemetry.interceptor';
import { McpInvoker } from '../registry/registry.types';
import * as directHandler from './mcp-direct.handler';
import { McpHandlerFactory } from './mcp-handler.factory';
import { McpInterceptorsConsumer } from './mcp-interceptors.consumer';
import { McpParamsFactory } from './mcp-params.factory';
import { InstanceWrapper } from './nest-internals';

/*
 * Every scenario runs one decorated provider method through McpHandlerFactory's invoker (the fast path) and through
 * stock Nest's ExternalContextCreator with the same parameters factory and context type: the two must resolve to the
 * same value or reject with the same error, and the guards, interceptors, pipes, filters and the method must run in
 * the same order, seeing the same ExecutionContext.
 */

/** What ran, in order: `guard:A`, `interceptor:B:before`, `pipe:C`, `handler`, `filter:D`… */
const log: string[] = [];
/** What each step saw: its ExecutionContext (or ArgumentsHost) and, for pipes, the ArgumentMetadata. */
const seen: string[] = [];
/** The context of the call in progress: handlers and enhancers check they were given this one. */
let current: McpRequestContext | undefined;

const ROLE = 'parity:role';

function describeArgs(args: unknown[]): string {
  return `args=${JSON.stringify(args[0]) ?? 'undefined'} ctx=${args[1] === current} n=${args.length}`;
}

function describeContext(context: ExecutionContext): string {
  const handler = context.getHandler();
  return [
    context.getType(),
    `${context.getClass()?.name}.${handler?.name}`,
    `role=${String(Reflect.getMetadata(ROLE, handler) ?? '-')}`,
    describeArgs(context.getArgs()),
  ].join(' ');
}

// --- enhancers: each logs under its own name ---------------------------------------------------------------------

function guard(name: string, answer: (context: ExecutionContext) => unknown): Type<CanActivate> {
  @Injectable()
  class LoggingGuard implements CanActivate {
    canActivate(context: ExecutionContext) {
      log.push(`guard:${name}`);
      seen.push(`guard:${name} ${describeContext(context)}`);
      return answer(context) as boolean;
    }
  }
  Object.defineProperty(LoggingGuard, 'name', { value: `Guard${name}` });
  return LoggingGuard;
}

function interceptor(
  name: string,
  intercept: (next: CallHandler, context: ExecutionContext) => Observable<unknown> | Promise<Observable<unknown>> = (
    next,
  ) => next.handle(),
): Type<NestInterceptor> {
  @Injectable()
  class LoggingInterceptor implements NestInterceptor {
    intercept(context: ExecutionContext, next: CallHandler) {
      log.push(`interceptor:${name}:before`);
      seen.push(`interceptor:${name} ${describeContext(context)}`);
      const logged: CallHandler = {
        handle: () =>
          next.handle().pipe(
            tap({
              next: () => log.push(`interceptor:${name}:after`),
              error: () => log.push(`interceptor:${name}:error`),
            }),
          ),
      };
      return intercept(logged, context);
    }
  }
  Object.defineProperty(LoggingInterceptor, 'name', { value: `Interceptor${name}` });
  return LoggingInterceptor;
}

function pipe(name: string, transform: (value: unknown, metadata: ArgumentMetadata) => unknown): Type<PipeTransform> {
  @Injectable()
  class LoggingPipe implements PipeTransform {
    transform(value: unknown, metadata: ArgumentMetadata) {
      log.push(`pipe:${name}:${value === current ? 'ctx' : 'args'}`);
      seen.push(`pipe:${name} type=${metadata.type} metatype=${metadata.metatype?.name} data=${String(metadata.data)}`);
      return transform(value, metadata);
    }
  }
  Object.defineProperty(LoggingPipe, 'name', { value: `Pipe${name}` });
  return LoggingPipe;
}

function filter(
  name: string,
  handle: (exception: unknown) => unknown,
  ...types: Type<unknown>[]
): Type<ExceptionFilter> {
  @Catch(...types)
  @Injectable()
  class LoggingFilter implements ExceptionFilter {
    catch(exception: unknown, host: ArgumentsHost) {
      log.push(`filter:${name}`);
      seen.push(`filter:${name} ${host.getType()} ${describeArgs(host.getArgs())}`);
      return handle(exception);
    }
  }
  Object.defineProperty(LoggingFilter, 'name', { value: `Filter${name}` });
  return LoggingFilter;
}

// Only transforms the tool's arguments; the context passes through untouched. (Pipes cannot tell them apart by
// `ArgumentMetadata.type`: Nest's PipesConsumer reports both `McpParamType`s as 'custom'.)
const onArgs = (change: (value: Record<string, unknown>) => unknown) => (value: unknown) =>
  value === current ? value : change(value as Record<string, unknown>);

const Allow = guard('Allow', () => true);
const Allow2 = guard('Allow2', () => true);
const Deny = guard('Deny', () => false);
const AsyncAllow = guard('AsyncAllow', async () => true);
const AsyncDeny = guard('AsyncDeny', async () => false);
const ObservableAllow = guard('ObservableAllow', () => of(true));
const ObservableDeny = guard('ObservableDeny', () => of(false));
const Undecided = guard('Undecided', () => undefined);
const Truthy = guard('Truthy', () => 'yes');
const Unauthorized = guard('Unauthorized', () => {
  throw new UnauthorizedException('who are you');
});
const ArgsGuard = guard('Args', (context) => (context.getArgs()[0] as { allow?: boolean } | undefined)?.allow === true);

const Tap = interceptor('Tap');
const ClassLevel = interceptor('Class');
const MethodLevel = interceptor('Method');
const Wrap = interceptor('Wrap', (next) => next.handle().pipe(map((value) => ({ wrapped: value }))));
const ShortCircuit = interceptor('ShortCircuit', () => of('from cache'));
const Throwing = interceptor('Throwing', () => {
  throw new ConflictException('refused by interceptor');
});
const Recover = interceptor('Recover', (next) =>
  next.handle().pipe(catchError((error: Error) => of(`recovered: ${error.message}`))),
);
const Retry = interceptor('Retry', (next) => next.handle().pipe(retry(2)));
const storage = new AsyncLocalStorage<string>();
const WithStore = interceptor('WithStore', (next) => storage.run('set by the interceptor', () => next.handle()));
const AsyncIntercept = interceptor('Async', async (next) => {
  await new Promise((resolve) => setImmediate(resolve));
  return next.handle().pipe(map((value) => `async(${JSON.stringify(value)})`));
});

const Upper = pipe(
  'Upper',
  onArgs((args) => ({ ...args, name: String(args.name).toUpperCase() })),
);
const Suffix = pipe(
  'Suffix',
  onArgs((args) => ({ ...args, name: `${String(args.name)}!` })),
);
const ClassPipe = pipe(
  'Class',
  onArgs((args) => ({ ...args, classPiped: true })),
);
const Reject = pipe('Reject', (value) => {
  if (value !== current && !(value as { name?: unknown }).name) throw new BadRequestException('name?');
  return value;
});

const NotFoundToValue = filter(
  'NotFoundToValue',
  (exception) => ({ isError: true, text: (exception as Error).message }),
  NotFoundException,
);
const ToBadRequest = filter('ToBadRequest', (exception) => {
  throw new BadRequestException(`mapped: ${(exception as Error).message}`);
});
const ClassCatchAll = filter('ClassCatchAll', (exception) => ({ caughtByClass: (exception as Error).message }));
const OnlyTeapot = filter('OnlyTeapot', () => 'never', ImATeapotException);

// --- providers -------------------------------------------------------------------------------------------------------

type Args = Record<string, unknown> | undefined;

@Injectable()
class DirectTools {
  plain(@McpArgs() args: Args, @McpCtx() ctx: McpRequestContext) {
    log.push('handler');
    return { echo: args, ctx: ctx === current };
  }

  ctxFirst(@McpCtx() ctx: McpRequestContext, @McpArgs() args: Args) {
    log.push('handler');
    return { echo: args, ctx: ctx === current };
  }

  @SetMetadata(ROLE, 'admin')
  @UseGuards(Allow)
  @UseInterceptors(Tap)
  guarded(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }

  @UseGuards(Deny)
  denied() {
    log.push('handler');
    return 'never';
  }

  @UseGuards(AsyncAllow, Deny)
  asyncThenDeny() {
    log.push('handler');
    return 'never';
  }

  @UseGuards(AsyncDeny, Allow)
  asyncDeny() {
    log.push('handler');
    return 'never';
  }

  @UseGuards(ObservableAllow, Truthy, Allow2)
  @UseInterceptors(Tap)
  observableGuards(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }

  @UseGuards(ObservableDeny)
  observableDeny() {
    log.push('handler');
    return 'never';
  }

  @UseGuards(Undecided)
  undecided() {
    log.push('handler');
    return 'never';
  }

  @UseGuards(Unauthorized)
  unauthorized() {
    log.push('handler');
    return 'never';
  }

  @UseGuards(ArgsGuard)
  byArgs(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }
}

@UseInterceptors(ClassLevel)
@Injectable()
class LayeredTools {
  @UseInterceptors(MethodLevel, Wrap)
  layered(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }

  @UseInterceptors(ShortCircuit)
  cached() {
    log.push('handler');
    return 'fresh';
  }

  @UseInterceptors(Throwing)
  refused() {
    log.push('handler');
    return 'never';
  }

  @UseInterceptors(Recover)
  recovered() {
    log.push('handler');
    throw new Error('handler failed');
  }

  // Fails twice, then answers: an interceptor's retry() runs the method again on both paths.
  @UseInterceptors(Retry)
  flaky() {
    const attempt = log.filter((step) => step.startsWith('handler')).length + 1;
    log.push(`handler:${attempt}`);
    if (attempt < 3) throw new Error('flaky');
    return 'third time';
  }

  @UseInterceptors(WithStore)
  async store() {
    await Promise.resolve();
    log.push(`handler:${storage.getStore()}`);
    return storage.getStore();
  }

  @UseInterceptors(AsyncIntercept)
  async asyncIntercepted(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }
}

@UseFilters(ClassCatchAll)
@Injectable()
class FilteredTools {
  @UseFilters(NotFoundToValue)
  missing(@McpArgs() args: Args) {
    log.push('handler');
    throw new NotFoundException(`no ${String(args?.id)}`);
  }

  @UseFilters(ToBadRequest)
  async remapped() {
    log.push('handler');
    throw new NotFoundException('gone');
  }

  // The method's filter only catches ImATeapotException: the class's catch-all takes the ConflictException.
  @UseFilters(OnlyTeapot)
  @UseInterceptors(Tap)
  classCaught() {
    log.push('handler');
    throw new ConflictException('taken');
  }

  @UseGuards(Deny)
  deniedThenCaught() {
    log.push('handler');
    return 'never';
  }
}

@Injectable()
class UnfilteredTools {
  notFound() {
    log.push('handler');
    throw new NotFoundException('nothing here');
  }

  async rejects() {
    log.push('handler');
    await new Promise((resolve) => setImmediate(resolve));
    throw new TypeError('async failure');
  }

  @UseInterceptors(Tap)
  throwsThroughInterceptor() {
    log.push('handler');
    throw new RangeError('out of range');
  }
}

@UsePipes(ClassPipe)
@Injectable()
class PipedTools {
  @UsePipes(Upper)
  piped(@McpArgs() args: Args, @McpCtx() ctx: McpRequestContext) {
    log.push('handler');
    return { echo: args, ctx: ctx === current };
  }

  paramPipe(@McpArgs(Upper) args: Args) {
    log.push('handler');
    return { echo: args };
  }

  paramPipeInstance(@McpCtx() ctx: McpRequestContext, @McpArgs(new Suffix()) args: Args) {
    log.push('handler');
    return { echo: args, ctx: ctx === current };
  }

  @UseGuards(Allow)
  @UseInterceptors(Tap)
  @UsePipes(Upper)
  everything(@McpArgs(Suffix) args: Args) {
    log.push('handler');
    return { echo: args };
  }

  @UseFilters(ToBadRequest)
  @UsePipes(Reject)
  validated(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }
}

@Injectable()
class AsyncTools {
  async delayed(@McpArgs() args: Args) {
    log.push('handler');
    await new Promise((resolve) => setTimeout(resolve, 1));
    return { later: args };
  }

  observable() {
    log.push('handler');
    return of(1, 2, 3);
  }

  @UseInterceptors(Wrap)
  observableIntercepted() {
    log.push('handler');
    return of('a', 'b');
  }

  async promiseOfObservable() {
    log.push('handler');
    return of('inside');
  }

  empty() {
    log.push('handler');
    return EMPTY;
  }

  failingObservable() {
    log.push('handler');
    return throwError(() => new NotFoundException('observable failed'));
  }

  @UseFilters(NotFoundToValue)
  @UseInterceptors(Tap)
  failingObservableFiltered() {
    log.push('handler');
    return throwError(() => new NotFoundException('observable failed'));
  }

  undefinedResult() {
    log.push('handler');
  }
}

const GlobalGuard = guard('Global', () => true);
const GlobalInterceptor = interceptor('Global');
const GlobalFilter = filter('Global', (exception) => ({ global: (exception as Error).message }), ImATeapotException);

@UseGuards(Allow2)
@Injectable()
class GlobalTools {
  @UseGuards(Allow)
  @UseInterceptors(MethodLevel)
  layered(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }

  plain() {
    log.push('handler');
    return 'plain';
  }

  teapot() {
    log.push('handler');
    throw new ImATeapotException('short and stout');
  }

  // A method's filter comes before the app's.
  @UseFilters(ClassCatchAll)
  teapotCaughtByMethod() {
    log.push('handler');
    throw new ImATeapotException('short and stout');
  }

  @UseGuards(Deny)
  denied() {
    log.push('handler');
    return 'never';
  }
}

const GlobalPipe = pipe(
  'Global',
  onArgs((args) => ({ ...args, global: true })),
);

@Injectable()
class GlobalPipeTools {
  @UseGuards(Allow)
  @UseInterceptors(Tap)
  plain(@McpArgs() args: Args, @McpCtx() ctx: McpRequestContext) {
    log.push('handler');
    return { echo: args, ctx: ctx === current };
  }

  @UsePipes(Upper)
  piped(@McpArgs(Suffix) args: Args) {
    log.push('handler');
    return { echo: args };
  }
}

// --- the testing modules ---------------------------------------------------------------------------------------------

type AppName = 'local' | 'global' | 'globalPipe';

const apps: Record<AppName, { providers: unknown[] }> = {
  local: { providers: [DirectTools, LayeredTools, FilteredTools, UnfilteredTools, PipedTools, AsyncTools] },
  global: {
    providers: [
      GlobalTools,
      { provide: APP_GUARD, useClass: GlobalGuard },
      { provide: APP_INTERCEPTOR, useClass: GlobalInterceptor },
      { provide: APP_FILTER, useClass: GlobalFilter },
    ],
  },
  globalPipe: {
    providers: [
      GlobalPipeTools,
      { provide: APP_PIPE, useClass: GlobalPipe },
      { provide: APP_GUARD, useClass: GlobalGuard },
    ],
  },
};

type Handler = (...args: unknown[]) => Promise<unknown>;

interface Built {
  fast: McpInvoker;
  stock: Handler;
  /** Whether McpHandlerFactory built it with createDirectHandler. */
  direct: boolean;
}

interface Scenario {
  name: string;
  app: AppName;
  host: Type<unknown>;
  method: string;
  args?: unknown;
  /** Whether the fast path calls the method directly (static provider, no pipe). */
  direct: boolean;
  /** Stock Nest's outcome, spelled out, so that a scenario cannot pass by both paths failing the same way. */
  expected: { value: unknown } | { error: string; message: string };
  log: string[];
}

const scenarios: Scenario[] = [
  // 1. no enhancers
  {
    name: '1. no enhancers: args and ctx reach the method',
    app: 'local',
    host: DirectTools,
    method: 'plain',
    args: { name: 'ada' },
    direct: true,
    expected: { value: { echo: { name: 'ada' }, ctx: true } },
    log: ['handler'],
  },
  {
    name: '1. no enhancers: @McpCtx() before @McpArgs()',
    app: 'local',
    host: DirectTools,
    method: 'ctxFirst',
    args: { name: 'ada' },
    direct: true,
    expected: { value: { echo: { name: 'ada' }, ctx: true } },
    log: ['handler'],
  },
  {
    name: '1. no enhancers: undefined args',
    app: 'local',
    host: DirectTools,
    method: 'plain',
    args: undefined,
    direct: true,
    expected: { value: { echo: undefined, ctx: true } },
    log: ['handler'],
  },
  // 2. guard allows + interceptor
  {
    name: '2. guard allows, one interceptor: the value passes through',
    app: 'local',
    host: DirectTools,
    method: 'guarded',
    args: { name: 'ada' },
    direct: true,
    expected: { value: { echo: { name: 'ada' } } },
    log: ['guard:Allow', 'interceptor:Tap:before', 'handler', 'interceptor:Tap:after'],
  },
  {
    name: '2. an observable guard, a truthy non-boolean guard and a boolean one allow',
    app: 'local',
    host: DirectTools,
    method: 'observableGuards',
    args: { n: 1 },
    direct: true,
    expected: { value: { echo: { n: 1 } } },
    log: [
      'guard:ObservableAllow',
      'guard:Truthy',
      'guard:Allow2',
      'interceptor:Tap:before',
      'handler',
      'interceptor:Tap:after',
    ],
  },
  {
    name: '2. a guard reading the args allows',
    app: 'local',
    host: DirectTools,
    method: 'byArgs',
    args: { allow: true },
    direct: true,
    expected: { value: { echo: { allow: true } } },
    log: ['guard:Args', 'handler'],
  },
  // 3. guard denies
  {
    name: '3. guard denies: ForbiddenException',
    app: 'local',
    host: DirectTools,
    method: 'denied',
    direct: true,
    expected: { error: 'ForbiddenException', message: 'Forbidden resource' },
    log: ['guard:Deny'],
  },
  {
    name: '3. an async guard allows, the next denies',
    app: 'local',
    host: DirectTools,
    method: 'asyncThenDeny',
    direct: true,
    expected: { error: 'ForbiddenException', message: 'Forbidden resource' },
    log: ['guard:AsyncAllow', 'guard:Deny'],
  },
  {
    name: '3. an async guard denies: the next guard never runs',
    app: 'local',
    host: DirectTools,
    method: 'asyncDeny',
    direct: true,
    expected: { error: 'ForbiddenException', message: 'Forbidden resource' },
    log: ['guard:AsyncDeny'],
  },
  {
    name: '3. an observable guard denies',
    app: 'local',
    host: DirectTools,
    method: 'observableDeny',
    direct: true,
    expected: { error: 'ForbiddenException', message: 'Forbidden resource' },
    log: ['guard:ObservableDeny'],
  },
  {
    name: '3. a guard answering undefined denies',
    app: 'local',
    host: DirectTools,
    method: 'undecided',
    direct: true,
    expected: { error: 'ForbiddenException', message: 'Forbidden resource' },
    log: ['guard:Undecided'],
  },
  {
    name: '3. a guard throwing its own exception',
    app: 'local',
    host: DirectTools,
    method: 'unauthorized',
    direct: true,
    expected: { error: 'UnauthorizedException', message: 'who are you' },
    log: ['guard:Unauthorized'],
  },
  {
    name: '3. a guard reading the args denies',
    app: 'local',
    host: DirectTools,
    method: 'byArgs',
    args: { allow: false },
    direct: true,
    expected: { error: 'ForbiddenException', message: 'Forbidden resource' },
    log: ['guard:Args'],
  },
  {
    name: '3. a refusal goes through the filters (class catch-all)',
    app: 'local',
    host: FilteredTools,
    method: 'deniedThenCaught',
    direct: true,
    expected: { value: { caughtByClass: 'Forbidden resource' } },
    log: ['guard:Deny', 'filter:ClassCatchAll'],
  },
  // 4. interceptor order
  {
    name: '4. class and method interceptors: same order in and out, the result mapped',
    app: 'local',
    host: LayeredTools,
    method: 'layered',
    args: { name: 'ada' },
    direct: true,
    expected: { value: { wrapped: { echo: { name: 'ada' } } } },
    log: [
      'interceptor:Class:before',
      'interceptor:Method:before',
      'interceptor:Wrap:before',
      'handler',
      'interceptor:Wrap:after',
      'interceptor:Method:after',
      'interceptor:Class:after',
    ],
  },
  {
    name: '4. an async intercept (a promise of an observable) maps the result',
    app: 'local',
    host: LayeredTools,
    method: 'asyncIntercepted',
    args: { x: 1 },
    direct: true,
    expected: { value: 'async({"echo":{"x":1}})' },
    log: [
      'interceptor:Class:before',
      'interceptor:Async:before',
      'handler',
      'interceptor:Async:after',
      'interceptor:Class:after',
    ],
  },
  // 5. short circuit
  {
    name: '5. an interceptor short-circuits: the method never runs',
    app: 'local',
    host: LayeredTools,
    method: 'cached',
    direct: true,
    expected: { value: 'from cache' },
    log: ['interceptor:Class:before', 'interceptor:ShortCircuit:before', 'interceptor:Class:after'],
  },
  {
    name: '5. an interceptor throws before the method',
    app: 'local',
    host: LayeredTools,
    method: 'refused',
    direct: true,
    expected: { error: 'ConflictException', message: 'refused by interceptor' },
    log: ['interceptor:Class:before', 'interceptor:Throwing:before', 'interceptor:Class:error'],
  },
  {
    name: '5. an interceptor recovers from the method’s error',
    app: 'local',
    host: LayeredTools,
    method: 'recovered',
    direct: true,
    expected: { value: 'recovered: handler failed' },
    log: [
      'interceptor:Class:before',
      'interceptor:Recover:before',
      'handler',
      'interceptor:Recover:error',
      'interceptor:Class:after',
    ],
  },
  {
    name: '5. an interceptor retries the failing method',
    app: 'local',
    host: LayeredTools,
    method: 'flaky',
    direct: true,
    expected: { value: 'third time' },
    log: [
      'interceptor:Class:before',
      'interceptor:Retry:before',
      'handler:1',
      'interceptor:Retry:error',
      'handler:2',
      'interceptor:Retry:error',
      'handler:3',
      'interceptor:Retry:after',
      'interceptor:Class:after',
    ],
  },
  {
    name: '5. the method runs in the async context the interceptor called next.handle() from',
    app: 'local',
    host: LayeredTools,
    method: 'store',
    direct: true,
    expected: { value: 'set by the interceptor' },
    log: [
      'interceptor:Class:before',
      'interceptor:WithStore:before',
      'handler:set by the interceptor',
      'interceptor:WithStore:after',
      'interceptor:Class:after',
    ],
  },
  // 6. filters
  {
    name: '6. NotFoundException mapped to a value by the method’s @Catch(NotFoundException) filter',
    app: 'local',
    host: FilteredTools,
    method: 'missing',
    args: { id: 7 },
    direct: true,
    expected: { value: { isError: true, text: 'no 7' } },
    log: ['handler', 'filter:NotFoundToValue'],
  },
  {
    name: '6. an async method’s error remapped by a filter that throws',
    app: 'local',
    host: FilteredTools,
    method: 'remapped',
    direct: true,
    expected: { error: 'BadRequestException', message: 'mapped: gone' },
    log: ['handler', 'filter:ToBadRequest'],
  },
  {
    name: '6. the method filter does not catch it: the class’s @Catch() does',
    app: 'local',
    host: FilteredTools,
    method: 'classCaught',
    direct: true,
    expected: { value: { caughtByClass: 'taken' } },
    log: ['interceptor:Tap:before', 'handler', 'interceptor:Tap:error', 'filter:ClassCatchAll'],
  },
  {
    name: '6. no filter: the HttpException rejects as thrown',
    app: 'local',
    host: UnfilteredTools,
    method: 'notFound',
    direct: true,
    expected: { error: 'NotFoundException', message: 'nothing here' },
    log: ['handler'],
  },
  {
    name: '6. no filter: an async TypeError rejects as thrown (and is logged)',
    app: 'local',
    host: UnfilteredTools,
    method: 'rejects',
    direct: true,
    expected: { error: 'TypeError', message: 'async failure' },
    log: ['handler', 'logger:error'],
  },
  {
    name: '6. no filter: an error through an interceptor rejects as thrown',
    app: 'local',
    host: UnfilteredTools,
    method: 'throwsThroughInterceptor',
    direct: true,
    expected: { error: 'RangeError', message: 'out of range' },
    log: ['interceptor:Tap:before', 'handler', 'interceptor:Tap:error', 'logger:error'],
  },
  // 7. pipes
  {
    name: '7. @UsePipes on the method (and the class) transforms the args, ctx untouched',
    app: 'local',
    host: PipedTools,
    method: 'piped',
    args: { name: 'ada' },
    direct: false,
    expected: { value: { echo: { name: 'ADA', classPiped: true }, ctx: true } },
    // Parameters in the order their decorators ran (last first), each through its pipes, side by side.
    log: ['pipe:Class:ctx', 'pipe:Class:args', 'pipe:Upper:ctx', 'pipe:Upper:args', 'handler'],
  },
  {
    name: '7. @McpArgs(PipeClass): a parameter pipe after the class pipe',
    app: 'local',
    host: PipedTools,
    method: 'paramPipe',
    args: { name: 'ada' },
    direct: false,
    expected: { value: { echo: { name: 'ADA', classPiped: true } } },
    log: ['pipe:Class:args', 'pipe:Upper:args', 'handler'],
  },
  {
    name: '7. @McpArgs(pipeInstance) after @McpCtx()',
    app: 'local',
    host: PipedTools,
    method: 'paramPipeInstance',
    args: { name: 'ada' },
    direct: false,
    expected: { value: { echo: { name: 'ada!', classPiped: true }, ctx: true } },
    log: ['pipe:Class:args', 'pipe:Class:ctx', 'pipe:Suffix:args', 'handler'],
  },
  {
    name: '7. guard, interceptor, class, method and parameter pipes together',
    app: 'local',
    host: PipedTools,
    method: 'everything',
    args: { name: 'ada' },
    direct: false,
    expected: { value: { echo: { name: 'ADA!', classPiped: true } } },
    log: [
      'guard:Allow',
      'interceptor:Tap:before',
      'pipe:Class:args',
      'pipe:Upper:args',
      'pipe:Suffix:args',
      'handler',
      'interceptor:Tap:after',
    ],
  },
  {
    name: '7. a pipe rejects the args: its error goes through the filter',
    app: 'local',
    host: PipedTools,
    method: 'validated',
    args: {},
    direct: false,
    expected: { error: 'BadRequestException', message: 'mapped: name?' },
    log: ['pipe:Class:args', 'pipe:Reject:args', 'filter:ToBadRequest'],
  },
  // 8. global enhancers
  {
    name: '8. APP_GUARD, class and method guards, APP_INTERCEPTOR and method interceptor',
    app: 'global',
    host: GlobalTools,
    method: 'layered',
    args: { name: 'ada' },
    direct: true,
    expected: { value: { echo: { name: 'ada' } } },
    log: [
      'guard:Global',
      'guard:Allow2',
      'guard:Allow',
      'interceptor:Global:before',
      'interceptor:Method:before',
      'handler',
      'interceptor:Method:after',
      'interceptor:Global:after',
    ],
  },
  {
    name: '8. a method without enhancers of its own still gets the app’s and its class’s',
    app: 'global',
    host: GlobalTools,
    method: 'plain',
    direct: true,
    expected: { value: 'plain' },
    log: ['guard:Global', 'guard:Allow2', 'interceptor:Global:before', 'handler', 'interceptor:Global:after'],
  },
  {
    name: '8. APP_FILTER maps the error',
    app: 'global',
    host: GlobalTools,
    method: 'teapot',
    direct: true,
    expected: { value: { global: 'short and stout' } },
    log: [
      'guard:Global',
      'guard:Allow2',
      'interceptor:Global:before',
      'handler',
      'interceptor:Global:error',
      'filter:Global',
    ],
  },
  {
    name: '8. a method filter takes precedence over APP_FILTER',
    app: 'global',
    host: GlobalTools,
    method: 'teapotCaughtByMethod',
    direct: true,
    expected: { value: { caughtByClass: 'short and stout' } },
    log: [
      'guard:Global',
      'guard:Allow2',
      'interceptor:Global:before',
      'handler',
      'interceptor:Global:error',
      'filter:ClassCatchAll',
    ],
  },
  {
    name: '8. the method guard denies after the global and class guards allowed',
    app: 'global',
    host: GlobalTools,
    method: 'denied',
    direct: true,
    expected: { error: 'ForbiddenException', message: 'Forbidden resource' },
    log: ['guard:Global', 'guard:Allow2', 'guard:Deny'],
  },
  {
    name: '8. APP_PIPE and APP_GUARD around a method without pipes of its own',
    app: 'globalPipe',
    host: GlobalPipeTools,
    method: 'plain',
    args: { name: 'ada' },
    direct: false,
    expected: { value: { echo: { name: 'ada', global: true }, ctx: true } },
    log: [
      'guard:Global',
      'guard:Allow',
      'interceptor:Tap:before',
      'pipe:Global:ctx',
      'pipe:Global:args',
      'handler',
      'interceptor:Tap:after',
    ],
  },
  {
    name: '8. APP_PIPE, then the method’s and the parameter’s pipes',
    app: 'globalPipe',
    host: GlobalPipeTools,
    method: 'piped',
    args: { name: 'ada' },
    direct: false,
    expected: { value: { echo: { name: 'ADA!', global: true } } },
    log: ['guard:Global', 'pipe:Global:args', 'pipe:Upper:args', 'pipe:Suffix:args', 'handler'],
  },
  // 9. async and observable results
  {
    name: '9. an async method: its promise is awaited',
    app: 'local',
    host: AsyncTools,
    method: 'delayed',
    args: { n: 1 },
    direct: true,
    expected: { value: { later: { n: 1 } } },
    log: ['handler'],
  },
  {
    name: '9. a method returning an Observable: its last value',
    app: 'local',
    host: AsyncTools,
    method: 'observable',
    direct: true,
    expected: { value: 3 },
    log: ['handler'],
  },
  {
    name: '9. an Observable through a mapping interceptor: the last mapped value',
    app: 'local',
    host: AsyncTools,
    method: 'observableIntercepted',
    direct: true,
    expected: { value: { wrapped: 'b' } },
    log: [
      'interceptor:Wrap:before',
      'handler',
      'interceptor:Wrap:after',
      'interceptor:Wrap:after', // the method's observable emitted twice, through the interceptor
    ],
  },
  {
    name: '9. an async method resolving to an Observable: its last value',
    app: 'local',
    host: AsyncTools,
    method: 'promiseOfObservable',
    direct: true,
    expected: { value: 'inside' },
    log: ['handler'],
  },
  {
    name: '9. an empty Observable: EmptyError',
    app: 'local',
    host: AsyncTools,
    method: 'empty',
    direct: true,
    expected: { error: 'EmptyErrorImpl', message: 'no elements in sequence' },
    log: ['handler', 'logger:error'],
  },
  {
    name: '9. an Observable that errors: rejects with its error',
    app: 'local',
    host: AsyncTools,
    method: 'failingObservable',
    direct: true,
    expected: { error: 'NotFoundException', message: 'observable failed' },
    log: ['handler'],
  },
  {
    name: '9. an Observable that errors through an interceptor, caught by a filter',
    app: 'local',
    host: AsyncTools,
    method: 'failingObservableFiltered',
    direct: true,
    expected: { value: { isError: true, text: 'observable failed' } },
    log: ['interceptor:Tap:before', 'handler', 'interceptor:Tap:error', 'filter:NotFoundToValue'],
  },
  {
    name: '9. a method returning nothing',
    app: 'local',
    host: AsyncTools,
    method: 'undefinedResult',
    direct: true,
    expected: { value: undefined },
    log: ['handler'],
  },
];

// --- running ---------------------------------------------------------------------------------------------------------

// Nothing here reads the context: handlers and enhancers only check that they were handed the caller's one. An
// instance without its fields keeps this spec independent of the context's constructor (McpRequestContextInit).
function newContext(): McpRequestContext {
  return Object.create(McpRequestContext.prototype) as McpRequestContext;
}

type Outcome =
  | { value: unknown; log: string[]; seen: string[] }
  | { error: string; message: string; response?: unknown; log: string[]; seen: string[] };

async function run(handler: McpInvoker, args: unknown, context = newContext()): Promise<Outcome> {
  log.length = 0;
  seen.length = 0;
  current = context;
  try {
    const value = await handler(args, current);
    return { value, log: [...log], seen: [...seen] };
  } catch (error) {
    const { name, message } = error instanceof Error ? { name: error.constructor.name, message: error.message } : {};
    const response = error instanceof HttpException ? error.getResponse() : undefined;
    return { error: String(name ?? error), message: String(message), response, log: [...log], seen: [...seen] };
  } finally {
    current = undefined;
  }
}

const key = (host: Type<unknown>, method: string) => `${host.name}.${method}`;

describe('McpHandlerFactory invoker vs stock ExternalContextCreator', () => {
  const modules: TestingModule[] = [];
  const built = new Map<string, Built>();
  let loggerError: jest.SpyInstance;

  beforeAll(async () => {
    // Nest's ExternalExceptionFilter logs an error that is no HttpException: recorded in the log, not printed.
    loggerError = jest.spyOn(ConsoleLogger.prototype, 'error').mockImplementation(() => {
      log.push('logger:error');
    });
    const createDirect = jest.spyOn(directHandler, 'createDirectHandler');
    for (const [app, { providers }] of Object.entries(apps) as Array<[AppName, { providers: unknown[] }]>) {
      const moduleRef = await Test.createTestingModule({
        imports: [DiscoveryModule],
        providers: [...(providers as Type<unknown>[]), McpHandlerFactory],
      }).compile();
      modules.push(moduleRef);
      const factory = moduleRef.get(McpHandlerFactory);
      const nest = moduleRef.get(ExternalContextCreator);
      const wrappers = moduleRef.get(DiscoveryService).getProviders();
      for (const scenario of scenarios.filter((s) => s.app === app)) {
        const id = key(scenario.host, scenario.method);
        if (built.has(id)) continue;
        const wrapper = wrappers.find((w) => w.metatype === scenario.host) as InstanceWrapper | undefined;
        if (!wrapper) throw new Error(`no provider ${scenario.host.name}`);
        // The fast invoker first: McpHandlerFactory resolves `@McpArgs(PipeClass)` into the method's metadata, which
        // stock Nest then reads as is (see 'where the fast path knowingly differs' for stock Nest on its own).
        // The invoker wraps the method on its first call: whether that wrapping is the direct one is read from
        // wrapStatic, what it calls.
        const fast = factory.createInvoker(wrapper, scenario.method);
        createDirect.mockClear();
        factory.wrapStatic(wrapper.instance as object, scenario.method);
        const direct = createDirect.mock.calls.length > 0;
        const instance = wrapper.instance as Record<string, Handler>;
        const stock = nest.create(
          instance,
          instance[scenario.method],
          scenario.method,
          MCP_PARAMS_METADATA,
          new McpParamsFactory(),
          undefined,
          undefined,
          undefined,
          MCP_CONTEXT_TYPE,
        ) as Handler;
        built.set(id, { fast, stock, direct });
      }
    }
    createDirect.mockRestore();
  });

  afterAll(async () => {
    loggerError.mockRestore();
    await Promise.all(modules.map((moduleRef) => moduleRef.close()));
  });

  describe.each(scenarios)('$name', (scenario) => {
    const { host, method, args } = scenario;

    it('stock Nest gives the expected outcome and order', async () => {
      const { stock } = built.get(key(host, method))!;
      const outcome = await run(stock, args);
      expect(outcome).toMatchObject({ ...scenario.expected, log: scenario.log });
    });

    it('the fast path gives the same outcome, order and contexts as stock Nest', async () => {
      const { stock, fast } = built.get(key(host, method))!;
      const nest = await run(stock, args);
      const ours = await run(fast, args);
      expect(ours).toEqual(nest);
      // Once more: the invoker keeps no state between calls.
      expect(await run(fast, args)).toEqual(nest);
    });

    it(`takes the ${scenario.direct ? 'direct' : 'parameter-pipes'} path`, () => {
      expect(built.get(key(host, method))!.direct).toBe(scenario.direct);
    });
  });

  it('runs interceptors through McpInterceptorsConsumer on the fast path, Nest’s consumer on the stock one', async () => {
    const intercept = jest.spyOn(McpInterceptorsConsumer.prototype, 'intercept');
    try {
      for (const method of ['layered', 'cached']) {
        const { stock, fast } = built.get(key(LayeredTools, method))!;
        intercept.mockClear();
        await run(stock, {});
        expect(intercept).not.toHaveBeenCalled();
        await run(fast, {});
        expect(intercept).toHaveBeenCalledTimes(1);
      }
    } finally {
      intercept.mockRestore();
    }
  });
});

// --- where the fast path knowingly differs from stock Nest -----------------------------------------------------------
// Each test pins both sides, so that the difference is visible here and a change on either side shows.

const IdentityGuard = guard('Identity', (context) => {
  seen.push(`handler is the method: ${context.getHandler() === DifferingTools.prototype.identity}`);
  return true;
});
const Lower = pipe(
  'Lower',
  onArgs((args) => ({ ...args, name: String(args.name).toLowerCase() })),
);

@Injectable()
class DifferingTools {
  // No @McpArgs() / @McpCtx(): McpExplorer warns that such a parameter receives the raw arguments by position.
  undecorated(args: Args, ctx: McpRequestContext) {
    log.push('handler');
    return { echo: args ?? null, ctx: ctx === current };
  }

  @UsePipes(Upper)
  undecoratedPiped(args: Args, ctx: McpRequestContext) {
    log.push('handler');
    return { echo: args ?? null, ctx: ctx === current };
  }

  @SetMetadata(ROLE, 'admin')
  @UseGuards(IdentityGuard)
  identity(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }

  // Lower is used nowhere else in its module, so Nest's scanner never registered it.
  lowered(@McpArgs(Lower) args: Args) {
    log.push('handler');
    return { echo: args };
  }
}

describe('where the fast path knowingly differs from stock Nest', () => {
  let moduleRef: TestingModule;
  let factory: McpHandlerFactory;
  let wrapper: InstanceWrapper;
  let instance: Record<string, Handler>;

  const stockHandler = (method: string) =>
    moduleRef
      .get(ExternalContextCreator)
      .create(
        instance,
        instance[method],
        method,
        MCP_PARAMS_METADATA,
        new McpParamsFactory(),
        undefined,
        undefined,
        undefined,
        MCP_CONTEXT_TYPE,
      ) as Handler;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [DiscoveryModule],
      providers: [DifferingTools, McpHandlerFactory],
    }).compile();
    factory = moduleRef.get(McpHandlerFactory);
    wrapper = moduleRef
      .get(DiscoveryService)
      .getProviders()
      .find((w) => w.metatype === DifferingTools) as InstanceWrapper;
    instance = wrapper.instance as Record<string, Handler>;
  });

  afterAll(() => moduleRef.close());

  it('a method without @McpArgs()/@McpCtx() gets (args, ctx) by position, on the direct path as from stock Nest', async () => {
    const args = { name: 'ada' };
    // Stock Nest: no parameter metadata, so the handler's own arguments are passed through as they are.
    expect(await run(stockHandler('undecorated'), args)).toMatchObject({ value: { echo: args, ctx: true } });
    expect(await run(factory.createInvoker(wrapper, 'undecorated'), args)).toMatchObject({
      value: { echo: args, ctx: true },
    });
    // With a pipe (Nest's own parameter step): (args, ctx) passed through, the pipe not run, on both.
    const piped = { value: { echo: args, ctx: true }, log: ['handler'] };
    expect(await run(stockHandler('undecoratedPiped'), args)).toEqual(expect.objectContaining(piped));
    expect(await run(factory.createInvoker(wrapper, 'undecoratedPiped'), args)).toEqual(expect.objectContaining(piped));
  });

  it('DIFFERENCE: on the direct path, context.getHandler() is a stand-in (same name and metadata), not the method', async () => {
    const nest = await run(stockHandler('identity'), { n: 1 });
    const ours = await run(factory.createInvoker(wrapper, 'identity'), { n: 1 });
    expect(nest.seen).toEqual([
      'guard:Identity mcp DifferingTools.identity role=admin args={"n":1} ctx=true n=2',
      'handler is the method: true',
    ]);
    expect(ours.seen).toEqual([
      'guard:Identity mcp DifferingTools.identity role=admin args={"n":1} ctx=true n=2',
      'handler is the method: false',
    ]);
    expect({ ...ours, seen: [] }).toEqual({ ...nest, seen: [] });
  });

  it('by design: stock Nest on its own skips an unregistered @McpArgs(PipeClass); McpHandlerFactory resolves and runs it', async () => {
    // Stock Nest first, before McpHandlerFactory rewrites the method's parameter metadata.
    const stock = stockHandler('lowered');
    const fast = factory.createInvoker(wrapper, 'lowered');
    expect(await run(stock, { name: 'ADA' })).toMatchObject({ value: { echo: { name: 'ADA' } }, log: ['handler'] });
    expect(await run(fast, { name: 'ADA' })).toMatchObject({
      value: { echo: { name: 'ada' } },
      log: ['pipe:Lower:args', 'handler'],
    });
  });
});

// --- McpTelemetryInterceptor: first around every tool, resource and prompt handler -------------------------------------
// McpContextCreator puts it in front of the interceptors Nest resolves for such a handler; the fast paths leave it out
// while nobody listens to its channels. Stock Nest only runs it where the app registers it.

@Injectable()
class TracedTools {
  @McpTool({ name: 'traced_layered' })
  @UseInterceptors(MethodLevel)
  layered(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }

  @McpTool({ name: 'traced_piped' })
  @UseInterceptors(MethodLevel)
  @UsePipes(Upper)
  piped(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }

  @McpTool({ name: 'traced_bare' })
  bare(@McpArgs() args: Args) {
    log.push('handler');
    return { echo: args };
  }
}

// The context of a tool call as the telemetry reads it (server, era, ids, cancellation), still free of the
// context's constructor.
function toolContext(): McpRequestContext {
  const fields = {
    server: 'parity',
    era: 'legacy',
    requestId: 7,
    sessionId: 's-1',
    cancelled: false,
    target: undefined,
  };
  const context = newContext();
  for (const [key, value] of Object.entries(fields))
    Object.defineProperty(context, key, { value, writable: true, enumerable: true });
  return context;
}

const traced = tracingChannel<unknown, McpHandlerTrace>(MCP_CHANNELS.tool);
const telemetrySteps = {
  start: (trace: McpHandlerTrace) => log.push(`telemetry:start ${trace.name} requestId=${trace.requestId}`),
  end: () => undefined,
  asyncStart: () => undefined,
  asyncEnd: (trace: McpHandlerTrace) => log.push(`telemetry:asyncEnd ${trace.status}`),
  error: () => undefined,
};

describe('McpTelemetryInterceptor in the handler pipeline', () => {
  const modules: TestingModule[] = [];
  let createDirect: jest.SpyInstance;

  /** The fast invoker and stock Nest's handler of each TracedTools method, in an app with `providers`. */
  async function build(providers: unknown[]) {
    const moduleRef = await Test.createTestingModule({
      imports: [DiscoveryModule],
      providers: [TracedTools, ...(providers as Type<unknown>[]), McpHandlerFactory],
    }).compile();
    modules.push(moduleRef);
    const factory = moduleRef.get(McpHandlerFactory);
    const nest = moduleRef.get(ExternalContextCreator);
    const wrapper = moduleRef
      .get(DiscoveryService)
      .getProviders()
      .find((w) => w.metatype === TracedTools) as InstanceWrapper;
    const instance = wrapper.instance as Record<string, Handler>;
    const built: Record<string, Built> = {};
    for (const method of ['layered', 'piped', 'bare']) {
      const fast = factory.createInvoker(wrapper, method);
      createDirect.mockClear();
      factory.wrapStatic(instance, method);
      const direct = createDirect.mock.calls.length > 0;
      const stock = nest.create(
        instance,
        instance[method],
        method,
        MCP_PARAMS_METADATA,
        new McpParamsFactory(),
        undefined,
        undefined,
        undefined,
        MCP_CONTEXT_TYPE,
      ) as Handler;
      built[method] = { fast, stock, direct };
    }
    return built;
  }

  let apps: Record<'unregistered' | 'registered', Record<string, Built>>;

  beforeAll(async () => {
    createDirect = jest.spyOn(directHandler, 'createDirectHandler');
    apps = {
      // The app registers only its own interceptor.
      unregistered: await build([{ provide: APP_INTERCEPTOR, useClass: GlobalInterceptor }]),
      // The app registers McpTelemetryInterceptor itself, as its first global interceptor: stock Nest then runs it
      // where McpHandlerFactory puts it.
      registered: await build([
        { provide: APP_INTERCEPTOR, useClass: McpTelemetryInterceptor },
        { provide: APP_INTERCEPTOR, useClass: GlobalInterceptor },
      ]),
    };
    createDirect.mockRestore();
  });

  afterEach(() => traced.unsubscribe(telemetrySteps));
  afterAll(() => Promise.all(modules.map((moduleRef) => moduleRef.close())));

  const withoutTelemetry = (outcome: Outcome) => ({
    ...outcome,
    log: outcome.log.filter((step) => !step.startsWith('telemetry:')),
  });

  it('takes the direct path without pipes, the parameter-pipes path with them', () => {
    for (const app of Object.values(apps)) {
      expect([app.layered.direct, app.piped.direct, app.bare.direct]).toEqual([true, false, true]);
    }
  });

  it.each(['layered', 'piped'])(
    'subscribed: runs first on the fast path (%s), before the app’s and the method’s interceptors',
    async (method) => {
      traced.subscribe(telemetrySteps);
      const { fast, stock } = apps.unregistered[method];
      const ours = await run(fast, { name: 'ada' }, toolContext());
      const name = method === 'layered' ? 'traced_layered' : 'traced_piped';
      expect(ours.log).toEqual([
        `telemetry:start ${name} requestId=7`,
        'interceptor:Global:before',
        'interceptor:Method:before',
        ...(method === 'piped' ? ['pipe:Upper:args'] : []),
        'handler',
        'interceptor:Method:after',
        'interceptor:Global:after',
        'telemetry:asyncEnd ok',
      ]);
      // Stock Nest does not know it: everything else the same.
      expect(withoutTelemetry(ours)).toEqual(await run(stock, { name: 'ada' }, toolContext()));
    },
  );

  it('subscribed: runs first for a handler without interceptors of its own, then the app’s', async () => {
    traced.subscribe(telemetrySteps);
    const intercept = jest.spyOn(McpInterceptorsConsumer.prototype, 'intercept');
    try {
      const { fast, stock } = apps.unregistered.bare;
      const ours = await run(fast, { n: 1 }, toolContext());
      expect(intercept).toHaveBeenCalledTimes(1);
      expect(ours.log).toEqual([
        'telemetry:start traced_bare requestId=7',
        'interceptor:Global:before',
        'handler',
        'interceptor:Global:after',
        'telemetry:asyncEnd ok',
      ]);
      expect(withoutTelemetry(ours)).toEqual(await run(stock, { n: 1 }, toolContext()));
    } finally {
      intercept.mockRestore();
    }
  });

  it.each(['layered', 'piped', 'bare'])(
    'nobody listening: the fast path leaves it out (%s), as stock Nest that does not know it',
    async (method) => {
      const { fast, stock } = apps.unregistered[method];
      const telemetry = jest.spyOn(McpTelemetryInterceptor.prototype, 'intercept');
      try {
        const nest = await run(stock, { name: 'ada' }, toolContext());
        expect(await run(fast, { name: 'ada' }, toolContext())).toEqual(nest);
        expect(telemetry).not.toHaveBeenCalled();
      } finally {
        telemetry.mockRestore();
      }
    },
  );

  it('nobody listening: a handler whose only interceptor is the telemetry one enters no chain', async () => {
    const app = await build([]);
    const intercept = jest.spyOn(McpInterceptorsConsumer.prototype, 'intercept');
    try {
      expect(await run(app.bare.fast, { n: 1 }, toolContext())).toMatchObject({ value: { echo: { n: 1 } } });
      expect(intercept).not.toHaveBeenCalled();
      traced.subscribe(telemetrySteps);
      expect((await run(app.bare.fast, { n: 1 }, toolContext())).log).toEqual([
        'telemetry:start traced_bare requestId=7',
        'handler',
        'telemetry:asyncEnd ok',
      ]);
      expect(intercept).toHaveBeenCalledTimes(1);
    } finally {
      intercept.mockRestore();
    }
  });

  it.each(['layered', 'piped', 'bare'])(
    'registered by the app first: the fast path (%s) matches stock Nest exactly, subscribed or not, and runs it once',
    async (method) => {
      const { fast, stock } = apps.registered[method];
      const quiet = await run(stock, { name: 'ada' }, toolContext());
      expect(await run(fast, { name: 'ada' }, toolContext())).toEqual(quiet);
      traced.subscribe(telemetrySteps);
      const nest = await run(stock, { name: 'ada' }, toolContext());
      expect(nest.log[0]).toMatch(/^telemetry:start traced_/);
      expect(nest.log.filter((step) => step.startsWith('telemetry:start'))).toHaveLength(1);
      expect(nest.log[1]).toBe('interceptor:Global:before');
      expect(nest.log[nest.log.length - 1]).toBe('telemetry:asyncEnd ok');
      expect(await run(fast, { name: 'ada' }, toolContext())).toEqual(nest);
    },
  );
});

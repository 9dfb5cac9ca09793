import { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { InterceptorsConsumer } from './nest-internals';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Observable, catchError, isObservable, lastValueFrom, map, of, retry, tap } from 'rxjs';
import { McpInterceptorsConsumer } from './mcp-interceptors.consumer';

// Each scenario runs through Nest's own consumer and through ours: same results, same errors, same order of events.
type Outcome = { value?: unknown; error?: string; events: string[] };

class Host {
  method(): void {}
}

async function run(
  consumer: InterceptorsConsumer,
  make: (events: string[]) => { interceptors: NestInterceptor[]; next: () => Promise<unknown> },
): Promise<Outcome> {
  const events: string[] = [];
  const { interceptors, next } = make(events);
  const host = new Host();
  try {
    const result = await consumer.intercept(interceptors, [{ args: 1 }], host, host.method, next, 'mcp');
    const value = isObservable(result) ? await lastValueFrom(result as Observable<unknown>) : result;
    return { value, events };
  } catch (error) {
    return { error: error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error), events };
  }
}

const interceptor = (intercept: (context: ExecutionContext, next: CallHandler) => unknown): NestInterceptor =>
  ({ intercept }) as NestInterceptor;

const scenarios: Record<
  string,
  (events: string[]) => { interceptors: NestInterceptor[]; next: () => Promise<unknown> }
> = {
  'no interceptors: the handler alone': (events) => ({
    interceptors: [],
    next: async () => (events.push('handler'), 'plain'),
  }),
  'two interceptors: outer first in, last out, each may map the result': (events) => ({
    interceptors: ['outer', 'inner'].map((name) =>
      interceptor((_context, next) => {
        events.push(`${name} before`);
        return next.handle().pipe(
          tap(() => events.push(`${name} after`)),
          map((value) => `${name}(${String(value)})`),
        );
      }),
    ),
    next: async () => (events.push('handler'), 'x'),
  }),
  'the context is the handler’s, typed mcp': (events) => ({
    interceptors: [
      interceptor((context, next) => {
        events.push(
          `${context.getType()} ${context.getClass().name} ${JSON.stringify(context.getArgs())} ${context.getHandler().name}`,
        );
        return next.handle();
      }),
    ],
    next: async () => 'ok',
  }),
  'a short circuit never runs the handler': (events) => ({
    interceptors: [interceptor(() => of('cached'))],
    next: async () => (events.push('handler'), 'fresh'),
  }),
  'an async intercept (a promise of an observable)': (events) => ({
    interceptors: [
      interceptor(async (_context, next) => {
        await new Promise((resolve) => setImmediate(resolve));
        events.push('ready');
        return next.handle().pipe(map((value) => `async(${String(value)})`));
      }),
    ],
    next: async () => (events.push('handler'), 'v'),
  }),
  'a handler error recovered by catchError': (events) => ({
    interceptors: [
      interceptor((_context, next) =>
        next.handle().pipe(catchError((error: Error) => of(`recovered ${error.message}`))),
      ),
    ],
    next: async () => {
      events.push('handler');
      throw new Error('boom');
    },
  }),
  'a handler error passed on': () => ({
    interceptors: [interceptor((_context, next) => next.handle())],
    next: async () => {
      throw new RangeError('out of range');
    },
  }),
  'an interceptor that throws before the handler': (events) => ({
    interceptors: [
      interceptor(() => {
        throw new TypeError('refused');
      }),
    ],
    next: async () => (events.push('handler'), 'never'),
  }),
  'a retry runs the handler again': (events) => {
    let calls = 0;
    return {
      interceptors: [interceptor((_context, next) => next.handle().pipe(retry(2)))],
      next: async () => {
        events.push(`handler ${++calls}`);
        if (calls < 3) throw new Error('flaky');
        return 'third time';
      },
    };
  },
  'a handler that returns an observable': (events) => ({
    interceptors: [interceptor((_context, next) => next.handle().pipe(map((value) => `[${String(value)}]`)))],
    next: async () => (events.push('handler'), of('from an observable')),
  }),
  'an interceptor that returns no observable fails the call': () => ({
    interceptors: [interceptor(() => 42)],
    next: async () => 'never',
  }),
};

describe('McpInterceptorsConsumer', () => {
  for (const [name, make] of Object.entries(scenarios)) {
    it(`behaves as Nest's InterceptorsConsumer: ${name}`, async () => {
      const nest = await run(new InterceptorsConsumer(), make);
      const ours = await run(new McpInterceptorsConsumer(), make);
      expect(ours).toEqual(nest);
    });
  }

  it('runs the handler in the async context the interceptor called next.handle() from', async () => {
    const storage = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    const interceptors = [interceptor((_context, next) => storage.run('set by the interceptor', () => next.handle()))];
    const next = async () => {
      await Promise.resolve();
      seen.push(storage.getStore());
      return 'done';
    };
    const host = new Host();
    for (const consumer of [new InterceptorsConsumer(), new McpInterceptorsConsumer()]) {
      const result = await consumer.intercept(interceptors, [], host, host.method, next, 'mcp');
      await lastValueFrom(result as Observable<unknown>);
    }
    expect(seen).toEqual(['set by the interceptor', 'set by the interceptor']);
  });

  it('does not run the handler when the caller unsubscribes before an async interceptor is ready', async () => {
    let handlerRuns = 0;
    const interceptors = [
      interceptor(async (_context, next) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return next.handle();
      }),
    ];
    const host = new Host();
    const result = (await new McpInterceptorsConsumer().intercept(
      interceptors,
      [],
      host,
      host.method,
      async () => ++handlerRuns,
      'mcp',
    )) as Observable<unknown>;
    result.subscribe().unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(handlerRuns).toBe(0);
  });
});

import { CallHandler, ContextType, NestInterceptor } from '@nestjs/common';
import { ExecutionContextHost, InterceptorsConsumer } from './nest-internals';
import { AsyncResource } from 'node:async_hooks';
import { markGuardsPassed } from './guard-passage';
import { Observable, ObservableInput, Subscription, from } from 'rxjs';

/**
 * Nest's interceptor chain, with the same order, the same `ExecutionContext` and the same async-context hand-over
 * (each `next.handle()` continues in the async context it was called from, so an interceptor's AsyncLocalStorage
 * reaches the handler). Nest does that hand-over with `AsyncResource.bind`, which on Node 20 costs ~10 µs a call (it
 * defines deprecated accessors on every bound function) and halved the throughput of a tool behind one interceptor;
 * this consumer holds one `AsyncResource` per step and enters it with `runInAsyncScope`, which costs ~0.1 µs.
 */
export class McpInterceptorsConsumer extends InterceptorsConsumer {
  override async intercept<TContext extends string = ContextType>(
    interceptors: NestInterceptor[],
    args: unknown[],
    instance: object,
    callback: (...args: unknown[]) => unknown,
    next: () => Promise<unknown>,
    type?: TContext,
  ): Promise<unknown> {
    markGuardsPassed(args[1]); // Nest calls the interceptor chain once the guards let the request through
    if (interceptors.length === 0) return next();
    const context = new ExecutionContextHost(args, instance.constructor as never, callback);
    context.setType(type as TContext);
    const step = async (index: number): Promise<ObservableInput<unknown>> => {
      if (index >= interceptors.length) return this.transformDeferred(next);
      const handler: CallHandler = { handle: () => inCallerScope(() => step(index + 1)) };
      return interceptors[index].intercept(context, handler) as ObservableInput<unknown>;
    };
    return flatten(() => step(0));
  }
}

/** `flatten(run)`, with `run` entered in the async context of this call. */
function inCallerScope(run: () => Promise<ObservableInput<unknown>>): Observable<unknown> {
  const scope = new AsyncResource('McpCallHandler');
  return flatten(() => scope.runInAsyncScope(run));
}

/**
 * What `defer(run).pipe(mergeAll())` gives for a `run` that resolves to one observable: `run` is called on
 * subscription, and its observable's values, error and completion are passed on. Without rxjs's operator machinery,
 * which is most of an interceptor's cost per call.
 */
function flatten(run: () => Promise<ObservableInput<unknown>>): Observable<unknown> {
  return new Observable((subscriber) => {
    let inner: Subscription | undefined;
    run().then(
      (value) => {
        if (subscriber.closed) return;
        try {
          inner = from(value).subscribe(subscriber);
        } catch (error) {
          subscriber.error(error); // not an observable, a promise or an iterable
        }
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => inner?.unsubscribe();
  });
}

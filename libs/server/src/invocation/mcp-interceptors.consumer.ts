import { CallHandler, ContextType, NestInterceptor } from '@nestjs/common';
import { ExecutionContextHost, InterceptorsConsumer } from './nest-internals';
import { AsyncResource } from 'node:async_hooks';
import { markGuardsPassed } from './guard-passage';
import { Observable, ObservableInput, Subscription, from } from 'rxjs';
import { McpTelemetryInterceptor } from '../telemetry/mcp-telemetry.interceptor';

/**
 * Nest's interceptor chain, with the same order, the same `ExecutionContext` and the same async-context hand-over
 * (each `next.handle()` continues in the async context it was called from, so an interceptor's AsyncLocalStorage
 * reaches the handler). Nest does that hand-over with `AsyncResource.bind`, which on Node 20 defines deprecated
 * accessors on every bound function; this consumer holds one `AsyncResource` per step and enters it with
 * `runInAsyncScope`, far cheaper (the figures are in bench/README.md).
 * `McpTelemetryInterceptor`, first in the chain of every tool, resource and prompt handler, is left out while nobody
 * listens to its channels: a handler with no other interceptor then runs without any chain.
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
    const first = untraced(interceptors, callback, args[1]) ? 1 : 0;
    if (interceptors.length === first) return next();
    const context = new ExecutionContextHost(args, instance.constructor as never, callback);
    context.setType(type as TContext);
    const step = async (index: number): Promise<ObservableInput<unknown>> => {
      if (index >= interceptors.length) return this.transformDeferred(next);
      const handler: CallHandler = { handle: () => inCallerScope(() => step(index + 1)) };
      return interceptors[index].intercept(context, handler) as ObservableInput<unknown>;
    };
    return flatten(() => step(first));
  }
}

/** Whether the chain starts with `McpTelemetryInterceptor` and nobody listens for this call: it is left out. */
function untraced(interceptors: NestInterceptor[], handler: Function, ctx: unknown): boolean {
  return interceptors[0] instanceof McpTelemetryInterceptor && !McpTelemetryInterceptor.observes(handler, ctx);
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

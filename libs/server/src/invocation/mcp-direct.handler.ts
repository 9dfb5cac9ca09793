import { CanActivate, ForbiddenException, NestInterceptor } from '@nestjs/common';
import { ExecutionContextHost } from './nest-internals';
import { isObservable, lastValueFrom } from 'rxjs';
import { MCP_CONTEXT_TYPE } from '../mcp.constants';
import { McpTelemetryInterceptor } from '../telemetry/mcp-telemetry.interceptor';
import { markGuardsPassed } from './guard-passage';
import { McpInterceptorsConsumer } from './mcp-interceptors.consumer';

type Handler = (...args: unknown[]) => Promise<unknown>;

/** What Nest resolved for a handler: its guards, interceptors and exception handler (`ExternalExceptionsHandler`). */
export interface ResolvedEnhancers {
  guards: CanActivate[];
  interceptors: NestInterceptor[];
  exceptions: { next(exception: unknown, host: ExecutionContextHost): unknown };
}

/**
 * The handler `ExternalContextCreator` builds for a method without pipes — guards (a refusal is Nest's
 * `ForbiddenException`), then the interceptor chain, then the method, an observable result awaited, any error through
 * the exception filters — in one async function, with guards that answer a boolean checked without awaiting them.
 * Nest's own wrapper spends about ten promise turns per call on the same steps. A chain of `McpTelemetryInterceptor`
 * alone is entered only while someone listens to its channels; otherwise the method is called without any chain.
 */
export function createDirectHandler(
  instance: object,
  standIn: Handler,
  call: (args: unknown, ctx: unknown) => unknown,
  enhancers: ResolvedEnhancers,
  consumer: McpInterceptorsConsumer,
): Handler {
  const { guards, interceptors, exceptions } = enhancers;
  const type = instance.constructor as never;
  const telemetryOnly = interceptors.length === 1 && interceptors[0] instanceof McpTelemetryInterceptor;
  return async (args: unknown, ctx: unknown) => {
    const argv = [args, ctx];
    try {
      if (guards.length) {
        const allowed = canActivate(guards, new ExecutionContextHost(argv, type, standIn));
        if (!(allowed === true || (allowed !== false && (await allowed))))
          throw new ForbiddenException('Forbidden resource');
        markGuardsPassed(ctx);
      }
      const chained = telemetryOnly ? McpTelemetryInterceptor.observes(standIn, ctx) : interceptors.length > 0;
      const result = chained
        ? await consumer.intercept(interceptors, argv, instance, standIn, async () => call(args, ctx), MCP_CONTEXT_TYPE)
        : await call(args, ctx);
      return isObservable(result) ? await lastValueFrom(result) : result;
    } catch (error) {
      const host = new ExecutionContextHost(argv);
      host.setType(MCP_CONTEXT_TYPE);
      return exceptions.next(error, host);
    }
  };
}

// Nest's GuardsConsumer, synchronous while the guards answer booleans.
function canActivate(guards: CanActivate[], context: ExecutionContextHost): boolean | Promise<boolean> {
  context.setType(MCP_CONTEXT_TYPE);
  for (let index = 0; index < guards.length; index++) {
    const result = guards[index].canActivate(context);
    if (result === true) continue;
    if (result === false) return false;
    return settle(result).then((ok) => ok && canActivate(guards.slice(index + 1), context));
  }
  return true;
}

async function settle(result: unknown): Promise<boolean> {
  const value = await result; // a promise, or an observable (also one of another copy of rxjs)
  return Boolean(isObservable(value) ? await lastValueFrom(value) : value);
}

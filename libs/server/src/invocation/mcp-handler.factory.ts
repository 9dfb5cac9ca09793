import { Injectable, PipeTransform, Type } from '@nestjs/common';
import { ContextIdFactory, ExternalContextCreator, ModuleRef } from '@nestjs/core';
import { ContextId, InstanceWrapper } from './nest-internals';
import { McpRequestContext } from '../context/mcp-request-context';
import { MCP_CONTEXT_TYPE, MCP_PARAMS_METADATA, McpParamType } from '../mcp.constants';
import { ALWAYS_ALLOWED, McpAccessCheck, McpInvoker } from '../registry/registry.types';
import { McpContextCreator } from './mcp-context.creator';
import { createDirectHandler } from './mcp-direct.handler';
import { McpParamsFactory } from './mcp-params.factory';

type Handler = (...args: unknown[]) => Promise<unknown>;
const GUARDS_ONLY = { guards: true, interceptors: false, filters: false };

/**
 * Wraps a discovered provider method once, on its first call, with Nest's `ExternalContextCreator` (context type
 * `'mcp'`; interceptors through `McpInterceptorsConsumer`), so guards, interceptors, pipes and exception filters run
 * around it. A static method without pipes runs the guards, interceptors and filters Nest resolved for it in one
 * step (`createDirectHandler`). Request-scoped providers are resolved per call, with the `McpRequestContext`
 * registered as the request.
 */
@Injectable()
export class McpHandlerFactory {
  private readonly paramsFactory = new McpParamsFactory();
  private readonly contextCreator: McpContextCreator;

  constructor(
    externalContextCreator: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
  ) {
    this.contextCreator = new McpContextCreator(externalContextCreator);
  }

  createInvoker(wrapper: InstanceWrapper, methodName: string): McpInvoker {
    this.instantiateParamPipes(wrapper.metatype as Function | null, methodName);
    if (wrapper.isDependencyTreeStatic() && wrapper.instance) {
      const instance = wrapper.instance as object;
      // Wrapped on its first call: a server with thousands of handlers starts without wrapping each of them.
      let invoke: McpInvoker | undefined;
      return (args, ctx) => {
        try {
          invoke ??= this.wrapStatic(instance, methodName);
        } catch (error) {
          return Promise.reject(error);
        }
        return invoke(args, ctx);
      };
    }
    return async (args, ctx) => {
      const { instance, contextId } = await this.resolvePerRequest(wrapper, ctx);
      const { handler } = this.create(
        instance,
        methodName,
        MCP_PARAMS_METADATA,
        this.paramsFactory,
        contextId,
        wrapper.id,
      );
      return handler(args, ctx);
    };
  }

  /**
   * The invoker of a method of a static provider, wrapped now ({@link createInvoker} wraps on the first call): Nest's
   * wrapping, or the direct call with the enhancers Nest resolved when no pipe applies.
   * @internal
   */
  wrapStatic(instance: object, methodName: string): McpInvoker {
    const wrapped = this.create(instance, methodName, MCP_PARAMS_METADATA, this.paramsFactory);
    // Without any pipe, Nest's parameter step only copies `[args, ctx]` into place, through a promise per parameter:
    // the method is then called directly, with the same guards, interceptors and filters around it.
    const direct = wrapped.piped ? undefined : directCall(instance, methodName);
    if (!direct) return (args, ctx) => wrapped.handler(args, ctx);
    const viaNest = this.create(
      instance,
      `${methodName}\u0000direct`,
      undefined,
      undefined,
      undefined,
      undefined,
      direct,
    );
    // Nest resolved the guards, interceptors and filters; they run around the method in one async step.
    const handler = viaNest.enhancers
      ? createDirectHandler(instance, direct, direct, viaNest.enhancers, this.contextCreator.interceptorsConsumer)
      : viaNest.handler;
    return (args, ctx) => handler(args, ctx);
  }

  /**
   * Runs only the method's guards. A probe function carrying the method's metadata stands in for the method, so the
   * guards see the same `getHandler()` metadata and the method itself never runs; it is built on the first check. A
   * method no guard applies to (read from the guards' metadata) gets `ALWAYS_ALLOWED`, so lists can skip it.
   */
  createAccessCheck(wrapper: InstanceWrapper, methodName: string): McpAccessCheck {
    const probeName = `${methodName}\u0000guards`;
    if (wrapper.isDependencyTreeStatic() && wrapper.instance) {
      const instance = wrapper.instance as object;
      if (!this.contextCreator.mayGuard(instance, (instance as Record<string, Handler>)[methodName]))
        return ALWAYS_ALLOWED;
      // Built on its first use, like the invoker.
      let check: McpAccessCheck | undefined;
      return (ctx) => {
        try {
          check ??= this.guardCheck(instance, methodName, probeName);
        } catch (error) {
          return Promise.reject(error);
        }
        return check(ctx);
      };
    }
    return async (ctx) => {
      const { instance, contextId } = await this.resolvePerRequest(wrapper, ctx);
      return passes(
        this.create(instance, probeName, undefined, undefined, contextId, wrapper.id, guardProbe(instance, methodName))
          .handler,
        ctx,
      );
    };
  }

  // The access check of a static provider's method: its guards around a probe standing in for the method.
  private guardCheck(instance: object, methodName: string, probeName: string): McpAccessCheck {
    const probe = this.create(
      instance,
      probeName,
      undefined,
      undefined,
      undefined,
      undefined,
      guardProbe(instance, methodName),
    );
    return probe.guarded ? (ctx) => passes(probe.handler, ctx) : ALWAYS_ALLOWED;
  }

  /**
   * Wraps `instance[methodName]`, or `stand-in` (a function carrying a method's metadata, under a name of its own):
   * a guard probe runs with guards only.
   */
  private create(
    instance: object,
    methodName: string,
    metadataKey?: string,
    paramsFactory?: McpParamsFactory,
    contextId?: ContextId,
    inquirerId?: string,
    standIn?: StandIn,
  ): ReturnType<McpContextCreator['create']> {
    const callback = standIn ?? (instance as Record<string, Handler>)[methodName];
    return this.contextCreator.create(
      instance,
      callback,
      methodName,
      metadataKey,
      paramsFactory,
      contextId,
      inquirerId,
      standIn?.guardsOnly ? GUARDS_ONLY : undefined,
      MCP_CONTEXT_TYPE,
    );
  }

  /**
   * `@McpArgs(SomePipe)`: Nest's scanner instantiates the pipe classes of route parameters only, so a pipe class given
   * here is resolved once at start-up — the app's provider if it has one, else a new instance — and stored in its place.
   */
  private instantiateParamPipes(type: Function | null, methodName: string): void {
    if (!type) return;
    const params = Reflect.getMetadata(MCP_PARAMS_METADATA, type, methodName) as
      Record<string, { pipes?: unknown[] }> | undefined;
    if (!params || !Object.values(params).some((param) => param.pipes?.some((pipe) => typeof pipe === 'function')))
      return;
    const instance = (pipe: unknown) =>
      typeof pipe === 'function' ? this.pipeInstance(pipe as Type<PipeTransform>) : pipe;
    const resolved = Object.fromEntries(
      Object.entries(params).map(([key, param]) => [key, { ...param, pipes: param.pipes?.map(instance) }]),
    );
    Reflect.defineMetadata(MCP_PARAMS_METADATA, resolved, type, methodName);
  }

  private pipeInstance(pipe: Type<PipeTransform>): PipeTransform {
    try {
      return this.moduleRef.get(pipe, { strict: false });
    } catch {
      return new pipe();
    }
  }

  private async resolvePerRequest(
    wrapper: InstanceWrapper,
    ctx: McpRequestContext,
  ): Promise<{ instance: object; contextId: ContextId }> {
    const contextId = ContextIdFactory.create();
    this.moduleRef.registerRequestByContextId(ctx, contextId);
    const instance = (await this.moduleRef.resolve(wrapper.token, contextId, { strict: false })) as object;
    return { instance, contextId };
  }
}

async function passes(guarded: Handler, ctx: McpRequestContext): Promise<boolean> {
  try {
    return (await guarded(undefined, ctx)) === true;
  } catch {
    return false;
  }
}

/** A function standing in for a method: it carries the method's metadata, so guards and interceptors read the same. */
type StandIn = Handler & { guardsOnly?: boolean };

// Stands in for the method in its access check: the method itself never runs.
function guardProbe(instance: object, methodName: string): StandIn {
  const probe: StandIn = copyMetadata((instance as Record<string, Handler>)[methodName], async () => true);
  probe.guardsOnly = true;
  return probe;
}

// Calls the method with its `@McpArgs()` / `@McpCtx()` parameters in place, from the invoker's `(args, ctx)`; undefined
// when a parameter carries pipes of its own (Nest's parameter step must run them).
function directCall(instance: object, methodName: string): StandIn | undefined {
  const method = (instance as Record<string, Handler>)[methodName];
  const params = (Reflect.getMetadata(MCP_PARAMS_METADATA, instance.constructor, methodName) ?? {}) as Record<
    string,
    { index: number; pipes?: unknown[] }
  >;
  const entries = Object.entries(params);
  // Without any parameter decorator, Nest passes the invoker's arguments through by position: so does this call.
  const slots: Array<[index: number, source: 0 | 1]> = entries.length
    ? []
    : [
        [0, 0],
        [1, 1],
      ];
  for (const [key, param] of entries) {
    if (param.pipes?.length) return undefined;
    const type = Number(key.split(':')[0]);
    if (type !== McpParamType.ARGS && type !== McpParamType.CONTEXT) return undefined;
    slots.push([param.index, type === McpParamType.ARGS ? 0 : 1]);
  }
  const length = Math.max(0, ...slots.map(([index]) => index + 1));
  const call = function (this: unknown, args: unknown, ctx: unknown) {
    const positional = new Array<unknown>(length);
    for (const [index, source] of slots) positional[index] = source === 0 ? args : ctx;
    return method.apply(instance, positional);
  } as Handler;
  Object.defineProperty(call, 'name', { value: method.name });
  return copyMetadata(method, call);
}

function copyMetadata<T extends object>(from: object, to: T): T {
  for (const key of Reflect.getMetadataKeys(from)) Reflect.defineMetadata(key, Reflect.getMetadata(key, from), to);
  return to;
}

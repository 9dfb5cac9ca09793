import { Injectable } from '@nestjs/common';
import { ContextIdFactory, ExternalContextCreator, ModuleRef } from '@nestjs/core';
import { ContextId } from '@nestjs/core/injector/instance-wrapper';
import { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { McpRequestContext } from '../context/mcp-request-context';
import { MCP_CONTEXT_TYPE, MCP_PARAMS_METADATA } from '../mcp.constants';
import { ALWAYS_ALLOWED, McpAccessCheck, McpInvoker } from '../registry/registry.types';
import { McpContextCreator } from './mcp-context.creator';
import { McpParamsFactory } from './mcp-params.factory';

type Handler = (...args: unknown[]) => Promise<unknown>;
const GUARDS_ONLY = { guards: true, interceptors: false, filters: false };

/**
 * Wraps a discovered provider method once with Nest's `ExternalContextCreator` (context type `'mcp'`; interceptors
 * through `McpInterceptorsConsumer`), so guards, interceptors, pipes and exception filters run around it. Request-scoped providers are resolved per call, with
 * the `McpRequestContext` registered as the request.
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
    if (wrapper.isDependencyTreeStatic() && wrapper.instance) {
      const { handler } = this.create(wrapper.instance as object, methodName, MCP_PARAMS_METADATA, this.paramsFactory);
      return (args, ctx) => handler(args, ctx);
    }
    return async (args, ctx) => {
      const { instance, contextId } = await this.resolvePerRequest(wrapper, ctx);
      const { handler } = this.create(instance, methodName, MCP_PARAMS_METADATA, this.paramsFactory, contextId, wrapper.id);
      return handler(args, ctx);
    };
  }

  /**
   * Runs only the method's guards. A probe function carrying the method's metadata stands in for the method, so the
   * guards see the same `getHandler()` metadata and the method itself never runs. A method no guard applies to gets
   * `ALWAYS_ALLOWED`, so lists can skip it.
   */
  createAccessCheck(wrapper: InstanceWrapper, methodName: string): McpAccessCheck {
    const probeName = `${methodName}\u0000guards`;
    if (wrapper.isDependencyTreeStatic() && wrapper.instance) {
      const probe = this.create(wrapper.instance as object, probeName, undefined, undefined, undefined, undefined, methodName);
      return probe.guarded ? (ctx) => passes(probe.handler, ctx) : ALWAYS_ALLOWED;
    }
    return async (ctx) => {
      const { instance, contextId } = await this.resolvePerRequest(wrapper, ctx);
      return passes(this.create(instance, probeName, undefined, undefined, contextId, wrapper.id, methodName).handler, ctx);
    };
  }

  /** `guardsOf` set: wrap a probe carrying that method's metadata, with guards only. */
  private create(
    instance: object,
    methodName: string,
    metadataKey?: string,
    paramsFactory?: McpParamsFactory,
    contextId?: ContextId,
    inquirerId?: string,
    guardsOf?: string,
  ): { handler: Handler; guarded: boolean } {
    const method = (instance as Record<string, Handler>)[guardsOf ?? methodName];
    const callback = guardsOf ? copyMetadata(method, async () => true) : method;
    return this.contextCreator.create(
      instance,
      callback,
      methodName,
      metadataKey,
      paramsFactory,
      contextId,
      inquirerId,
      guardsOf ? GUARDS_ONLY : undefined,
      MCP_CONTEXT_TYPE,
    );
  }

  private async resolvePerRequest(wrapper: InstanceWrapper, ctx: McpRequestContext): Promise<{ instance: object; contextId: ContextId }> {
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

function copyMetadata<T extends object>(from: object, to: T): T {
  for (const key of Reflect.getMetadataKeys(from)) Reflect.defineMetadata(key, Reflect.getMetadata(key, from), to);
  return to;
}

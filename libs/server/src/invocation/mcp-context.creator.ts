import { Logger, NestInterceptor } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import { McpTelemetryInterceptor } from '../telemetry/mcp-telemetry.interceptor';
import { ResolvedEnhancers } from './mcp-direct.handler';
import { McpInterceptorsConsumer } from './mcp-interceptors.consumer';
import { GUARDS_METADATA } from './nest-internals';

/** The parts of Nest's `ExternalContextCreator` it is built from (its constructor arguments). */
interface EnhancerCreator {
  create(...args: unknown[]): unknown;
}
interface ContextCreatorParts {
  guardsContextCreator: EnhancerCreator;
  guardsConsumer: unknown;
  interceptorsContextCreator: EnhancerCreator;
  modulesContainer: unknown;
  pipesContextCreator: EnhancerCreator;
  pipesConsumer: unknown;
  filtersContextCreator: EnhancerCreator;
  container: unknown;
}
type Ctor = new (...parts: unknown[]) => ExternalContextCreator;
type Handler = (...args: unknown[]) => Promise<unknown>;
const PARTS = [
  'guardsContextCreator',
  'guardsConsumer',
  'interceptorsContextCreator',
  'modulesContainer',
  'pipesContextCreator',
  'pipesConsumer',
  'filtersContextCreator',
] as const;

/**
 * Nest's own `ExternalContextCreator` (the app's guards, pipes, filters, module scoping and request scope, untouched)
 * with `McpInterceptorsConsumer` in place of Nest's interceptor chain, and told which handlers have guards or pipes
 * at all. The interceptors Nest resolves for a tool, resource or prompt handler get `McpTelemetryInterceptor` in
 * front, so it runs first around the handler (the consumer and the direct handler leave it out while nobody listens).
 * Falls back to Nest's creator, with a warning, if this Nest version is not built from the parts it expects (then
 * the methods publish each handler's event whole, at its end: no `start` around the handler).
 */
export class McpContextCreator {
  private readonly creator: ExternalContextCreator;
  private readonly rebuilt: boolean;
  private readonly globalGuards: (() => unknown) | undefined;
  private recorded: Partial<ResolvedEnhancers> & { pipes?: unknown[] } = {};
  /** The interceptor chain of every handler this creator wraps. */
  readonly interceptorsConsumer = new McpInterceptorsConsumer();
  private readonly telemetry = new McpTelemetryInterceptor();

  constructor(nest: ExternalContextCreator) {
    const parts = nest as unknown as ContextCreatorParts;
    this.rebuilt = PARTS.every((name) => parts[name]);
    const guards = parts.guardsContextCreator as (EnhancerCreator & { getGlobalMetadata?: () => unknown }) | undefined;
    this.globalGuards = typeof guards?.getGlobalMetadata === 'function' ? () => guards.getGlobalMetadata!() : undefined;
    if (!this.rebuilt) {
      new Logger('McpModule').warn(
        "This Nest version builds ExternalContextCreator differently; interceptors run through Nest's slower consumer",
      );
      this.creator = nest;
      return;
    }
    // The guards and pipes Nest resolves for each handler (global ones included) are recorded: a handler without
    // guards needs no access check, one without pipes can be called directly.
    this.creator = new (ExternalContextCreator as unknown as Ctor)(
      this.recording(parts.guardsContextCreator, 'guards'),
      parts.guardsConsumer,
      this.recording(parts.interceptorsContextCreator, 'interceptors', (made, callback) =>
        this.withTelemetryFirst(made as NestInterceptor[], callback),
      ),
      this.interceptorsConsumer,
      parts.modulesContainer,
      this.recording(parts.pipesContextCreator, 'pipes'),
      parts.pipesConsumer,
      this.recording(parts.filtersContextCreator, 'exceptions'),
    );
    // Request-scoped handlers register their request through the container, as Nest's creator does.
    (this.creator as unknown as ContextCreatorParts).container = parts.container;
  }

  /**
   * `ExternalContextCreator.create`, and whether any guard, or any pipe of the handler, its class or the app, runs
   * around it (true when it cannot tell), and the guards, interceptors and exception handler Nest resolved for it
   * (undefined when it cannot tell).
   */
  create(...args: Parameters<ExternalContextCreator['create']>): {
    handler: Handler;
    guarded: boolean;
    piped: boolean;
    enhancers: ResolvedEnhancers | undefined;
  } {
    this.recorded = {};
    const handler = this.creator.create(...args) as Handler;
    const { guards, pipes, interceptors, exceptions } = this.recorded; // set by the recording creators, during create()
    const enhancers =
      this.rebuilt && guards && interceptors && exceptions ? { guards, interceptors, exceptions } : undefined;
    return {
      handler,
      guarded: !this.rebuilt || !guards || guards.length > 0,
      piped: !this.rebuilt || !pipes || pipes.length > 0,
      enhancers,
    };
  }

  /**
   * Whether a guard may run around `callback` of `instance`: the app's global guards, the class's or the method's
   * (`@UseGuards`), read from their metadata without building a context; true when it cannot tell. A handler no guard
   * applies to needs no access check, and none is built for it.
   */
  mayGuard(instance: object, callback: Function): boolean {
    const globals = this.rebuilt ? this.globalGuards?.() : undefined;
    if (!Array.isArray(globals) || globals.length > 0) return true;
    const own = (target: object) => Reflect.getMetadata(GUARDS_METADATA, target) as unknown[] | undefined;
    return !!own(instance.constructor)?.length || !!own(callback)?.length;
  }

  // A context creator that works as `creator` (its state stays on the copy), its result adjusted by `adjust` (given the
  // handler, its `create`'s second argument), and records what `create` returns.
  private recording(
    creator: EnhancerCreator,
    kind: 'guards' | 'pipes' | 'interceptors' | 'exceptions',
    adjust: (made: unknown, callback: Function) => unknown = (made) => made,
  ): EnhancerCreator {
    const copy = Object.create(creator) as EnhancerCreator;
    const recorded = (made: unknown) => ((this.recorded as Record<string, unknown>)[kind] = made);
    copy.create = function (this: EnhancerCreator, ...args: unknown[]) {
      return recorded(adjust(creator.create.apply(this, args), args[1] as Function));
    };
    return copy;
  }

  // A tool, resource or prompt handler's interceptors, McpTelemetryInterceptor first (once, even if the app
  // registered it too); any other handler's as they are.
  private withTelemetryFirst(interceptors: NestInterceptor[], callback: Function): NestInterceptor[] {
    if (!McpTelemetryInterceptor.traces(callback)) return interceptors;
    const registered = interceptors.find((interceptor) => interceptor instanceof McpTelemetryInterceptor);
    const others = interceptors.filter((interceptor) => !(interceptor instanceof McpTelemetryInterceptor));
    return [registered ?? this.telemetry, ...others];
  }
}

import { Logger } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import { McpInterceptorsConsumer } from './mcp-interceptors.consumer';

/** The parts of Nest's `ExternalContextCreator` it is built from (its constructor arguments). */
interface ContextCreatorParts {
  guardsContextCreator: { create(...args: unknown[]): unknown[] };
  guardsConsumer: unknown;
  interceptorsContextCreator: unknown;
  modulesContainer: unknown;
  pipesContextCreator: unknown;
  pipesConsumer: unknown;
  filtersContextCreator: unknown;
  container: unknown;
}
type Ctor = new (...parts: unknown[]) => ExternalContextCreator;
type Handler = (...args: unknown[]) => Promise<unknown>;
const PARTS = ['guardsContextCreator', 'guardsConsumer', 'interceptorsContextCreator', 'modulesContainer', 'pipesContextCreator', 'pipesConsumer', 'filtersContextCreator'] as const;

/**
 * Nest's own `ExternalContextCreator` (the app's guards, pipes, filters, module scoping and request scope, untouched)
 * with `McpInterceptorsConsumer` in place of Nest's interceptor chain, and told which handlers have guards at all.
 * Falls back to Nest's creator, with a warning, if this Nest version is not built from the parts it expects.
 */
export class McpContextCreator {
  private readonly creator: ExternalContextCreator;
  private readonly rebuilt: boolean;
  private lastGuards: unknown[] | undefined;

  constructor(nest: ExternalContextCreator) {
    const parts = nest as unknown as ContextCreatorParts;
    this.rebuilt = PARTS.every((name) => parts[name]);
    if (!this.rebuilt) {
      new Logger('McpModule').warn("This Nest version builds ExternalContextCreator differently; interceptors run through Nest's slower consumer");
      this.creator = nest;
      return;
    }
    // The guards Nest resolves for each handler are recorded, so that a handler without any needs no access check.
    const guards = Object.create(parts.guardsContextCreator) as ContextCreatorParts['guardsContextCreator'];
    guards.create = (...args) => (this.lastGuards = parts.guardsContextCreator.create(...args));
    this.creator = new (ExternalContextCreator as unknown as Ctor)(
      guards,
      parts.guardsConsumer,
      parts.interceptorsContextCreator,
      new McpInterceptorsConsumer(),
      parts.modulesContainer,
      parts.pipesContextCreator,
      parts.pipesConsumer,
      parts.filtersContextCreator,
    );
    // Request-scoped handlers register their request through the container, as Nest's creator does.
    (this.creator as unknown as ContextCreatorParts).container = parts.container;
  }

  /** `ExternalContextCreator.create`, and whether any guard runs around the handler (true when it cannot tell). */
  create(...args: Parameters<ExternalContextCreator['create']>): { handler: Handler; guarded: boolean } {
    this.lastGuards = undefined;
    const handler = this.creator.create(...args) as Handler;
    const recorded = this.lastGuards as unknown[] | undefined; // set by the recording guards creator, during create()
    const guarded = !this.rebuilt || recorded === undefined || recorded.length > 0;
    return { handler, guarded };
  }
}

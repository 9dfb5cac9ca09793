import { Logger } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import { McpInterceptorsConsumer } from './mcp-interceptors.consumer';

/** The parts of Nest's `ExternalContextCreator` it is built from (its constructor arguments). */
interface ContextCreatorParts {
  guardsContextCreator: unknown;
  guardsConsumer: unknown;
  interceptorsContextCreator: unknown;
  modulesContainer: unknown;
  pipesContextCreator: unknown;
  pipesConsumer: unknown;
  filtersContextCreator: unknown;
  container: unknown;
}
type Ctor = new (...parts: unknown[]) => ExternalContextCreator;

/**
 * Nest's own `ExternalContextCreator` (the app's guards, pipes, filters, module scoping and request scope, untouched)
 * with `McpInterceptorsConsumer` in place of Nest's interceptor chain. Falls back to Nest's creator, with a warning,
 * if this Nest version is not built from the parts it expects.
 */
export function createMcpContextCreator(nest: ExternalContextCreator): ExternalContextCreator {
  const parts = nest as unknown as ContextCreatorParts;
  const names = ['guardsContextCreator', 'guardsConsumer', 'interceptorsContextCreator', 'modulesContainer', 'pipesContextCreator', 'pipesConsumer', 'filtersContextCreator'] as const;
  if (names.some((name) => !parts[name])) {
    new Logger('McpModule').warn('This Nest version builds ExternalContextCreator differently; interceptors run through Nest\'s slower consumer');
    return nest;
  }
  const creator = new (ExternalContextCreator as unknown as Ctor)(
    parts.guardsContextCreator,
    parts.guardsConsumer,
    parts.interceptorsContextCreator,
    new McpInterceptorsConsumer(),
    parts.modulesContainer,
    parts.pipesContextCreator,
    parts.pipesConsumer,
    parts.filtersContextCreator,
  );
  // Request-scoped handlers register their request through the container, as Nest's creator does.
  (creator as unknown as ContextCreatorParts).container = parts.container;
  return creator;
}

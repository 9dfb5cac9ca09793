import { ConfigurableModuleBuilder, DynamicModule } from '@nestjs/common';
import { metricsControllerFor } from './mcp-metrics.controller';
import { McpMetricsOptions } from './mcp-metrics.options';

/** `route` of `McpMetricsModule.forRoot` / `forRootAsync`: serve the scrape route, at `/metrics` or at `path`. */
export type McpMetricsRoute = boolean | { path?: string };

/** Options of the module alone, given beside the others (in `forRootAsync` too, since they shape the module). */
export interface McpMetricsModuleExtras {
  /** Serve `GET /metrics` (`true`) or `GET <path>` with the exposition text. Default off. */
  route: McpMetricsRoute;
  /** Make `McpPrometheusMetrics` injectable everywhere without importing the module again. Default false. */
  isGlobal: boolean;
}

export const DEFAULT_METRICS_PATH = '/metrics';

export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_METRICS_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpMetricsOptions>()
  .setClassMethodName('forRoot')
  // The route is an extra, not an option: its controller is decorated when the module is built, before any factory
  // of forRootAsync has run.
  .setExtras<McpMetricsModuleExtras>({ route: false, isGlobal: false }, withRoute)
  .build();

function withRoute(definition: DynamicModule, extras: McpMetricsModuleExtras): DynamicModule {
  const path = routePath(extras.route);
  return {
    ...definition,
    global: extras.isGlobal,
    ...(path === undefined ? {} : { controllers: [metricsControllerFor(path)] }),
  };
}

/** The path of the scrape route, or undefined for none; refuses a path that does not start with `/`. */
export function routePath(route: McpMetricsRoute | undefined): string | undefined {
  if (!route) return undefined;
  const path = route === true ? DEFAULT_METRICS_PATH : (route.path ?? DEFAULT_METRICS_PATH);
  if (typeof path !== 'string' || !/^\/\S*$/.test(path))
    throw new Error(`McpMetricsModule: route.path must start with / and hold no spaces (got ${JSON.stringify(path)})`);
  return path;
}

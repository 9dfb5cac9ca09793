import { DynamicModule, Module } from '@nestjs/common';
import {
  ASYNC_OPTIONS_TYPE,
  ConfigurableModuleClass,
  MCP_METRICS_OPTIONS,
  OPTIONS_TYPE,
} from './mcp-metrics.module-definition';
import { McpMetricsLifecycle } from './mcp-metrics.lifecycle';
import { McpMetricsOptions } from './mcp-metrics.options';
import { McpPrometheusMetrics } from './mcp-prometheus.metrics';

/**
 * Prometheus metrics of the app's MCP servers and clients: provides {@link McpPrometheusMetrics} (started with the
 * app, stopped with it), and with `route` serves the scrape route. Not global unless `isGlobal: true`.
 */
@Module({
  providers: [
    {
      provide: McpPrometheusMetrics,
      useFactory: (options: McpMetricsOptions) => new McpPrometheusMetrics(options),
      inject: [MCP_METRICS_OPTIONS],
    },
    McpMetricsLifecycle,
  ],
  exports: [McpPrometheusMetrics],
})
export class McpMetricsModule extends ConfigurableModuleClass {
  /**
   * The metrics, with options (`prefix`, `buckets`, `registry`, `maxLabelValues`, …), and `route` to serve them.
   *
   * @example
   * ```ts
   * @Module({
   *   imports: [
   *     McpModule.forRoot({ name: 'notes', version: '1.0.0' }),
   *     McpMetricsModule.forRoot({ prefix: 'notes_', route: true }), // GET /metrics
   *   ],
   * })
   * export class AppModule {}
   * ```
   */
  static forRoot(options: typeof OPTIONS_TYPE = {}): DynamicModule {
    return super.forRoot(options);
  }

  /**
   * `forRoot` with options a factory builds from injected providers. `route` and `isGlobal` are given beside the
   * factory: they shape the module before the factory runs.
   *
   * @example
   * ```ts
   * McpMetricsModule.forRootAsync({
   *   route: { path: '/internal/metrics' },
   *   imports: [SettingsModule],
   *   inject: [Settings],
   *   useFactory: (settings: Settings) => ({ prefix: settings.metricsPrefix }),
   * });
   * ```
   */
  static forRootAsync(options: typeof ASYNC_OPTIONS_TYPE): DynamicModule {
    return super.forRootAsync(options);
  }
}

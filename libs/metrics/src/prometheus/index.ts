export { McpPrometheusMetrics } from './mcp-prometheus.metrics';
export {
  DEFAULT_MAX_LABEL_VALUES,
  DEFAULT_OPERATION_BUCKETS,
  DEFAULT_SESSION_BUCKETS,
  type McpMetricsOptions,
} from './mcp-metrics.options';
export { McpMetricsModule } from './mcp-metrics.module';
export {
  MCP_METRICS_OPTIONS,
  type McpMetricsModuleExtras,
  type McpMetricsRoute,
} from './mcp-metrics.module-definition';

export { McpPrometheusMetrics } from './prometheus/mcp-prometheus.metrics';
export {
  DEFAULT_MAX_LABEL_VALUES,
  DEFAULT_OPERATION_BUCKETS,
  DEFAULT_SESSION_BUCKETS,
} from './prometheus/mcp-metrics.options';
export type { McpMetricsOptions } from './prometheus/mcp-metrics.options';
export { McpMetricsModule } from './prometheus/mcp-metrics.module';
export { MCP_METRICS_OPTIONS } from './prometheus/mcp-metrics.module-definition';
export type { McpMetricsModuleExtras, McpMetricsRoute } from './prometheus/mcp-metrics.module-definition';
export { McpTracing } from './tracing/mcp-tracing';
export { McpTracingModule } from './tracing/mcp-tracing.module';
export { MCP_TRACING_OPTIONS } from './tracing/mcp-tracing.module-definition';
export type { McpTracingOptions } from './tracing/mcp-tracing.options';
export { HANDLER_OUTCOME_ATTRIBUTE } from './tracing/mcp-span.attributes';
export { MCP_ATTRIBUTES } from './semconv/mcp.semconv';

import { DynamicModule } from '@nestjs/common';
import { McpMetricsModule } from '@conduit-mcp/metrics';

/** Whether the demo serves its Prometheus metrics (`METRICS=1 npm start`). */
export function metricsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.METRICS === '1';
}

/** With `METRICS=1`: Prometheus metrics of the demo's MCP server on `GET /metrics` (next to `/mcp` and `/health`). */
export function metricsImports(env: NodeJS.ProcessEnv = process.env): DynamicModule[] {
  return metricsEnabled(env) ? [McpMetricsModule.forRoot({ route: true })] : [];
}

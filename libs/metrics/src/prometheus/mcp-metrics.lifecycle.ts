import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { McpPrometheusMetrics } from './mcp-prometheus.metrics';

/**
 * Starts the module's metrics with the app and stops them with it: at application shutdown, after the MCP servers
 * drained their requests (before that, in `beforeApplicationShutdown`), so that the last requests are counted too.
 */
@Injectable()
export class McpMetricsLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(private readonly metrics: McpPrometheusMetrics) {}

  onModuleInit(): void {
    this.metrics.start();
  }

  onApplicationShutdown(): void {
    this.metrics.stop();
  }
}

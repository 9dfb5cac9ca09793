import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { McpPrometheusMetrics } from './mcp-prometheus.metrics';

/** Starts the module's metrics with the app and stops them with it. */
@Injectable()
export class McpMetricsLifecycle implements OnModuleInit, OnModuleDestroy {
  constructor(private readonly metrics: McpPrometheusMetrics) {}

  onModuleInit(): void {
    this.metrics.start();
  }

  onModuleDestroy(): void {
    this.metrics.stop();
  }
}

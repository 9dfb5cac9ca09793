import { Controller, Get, StreamableFile, Type } from '@nestjs/common';
import { McpPrometheusMetrics } from './mcp-prometheus.metrics';

/**
 * A controller serving `GET <path>` with the exposition text of the metrics' registry, on Express and Fastify alike.
 * A class per path: route decorators take their path when the class is declared.
 */
export function metricsControllerFor(path: string): Type<unknown> {
  @Controller()
  class McpMetricsController {
    constructor(private readonly metrics: McpPrometheusMetrics) {}

    @Get(path)
    async scrape(): Promise<StreamableFile> {
      const body = Buffer.from(await this.metrics.metrics(), 'utf8');
      // A StreamableFile's type is set as it is by both adapters; a string body would have Express rewrite it.
      return new StreamableFile(body, { type: this.metrics.contentType, length: body.length });
    }
  }
  return McpMetricsController;
}

import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { McpServer } from '../mcp.server';

/**
 * Terminus health indicator of an MCP server: up when its registry is loaded and at least one transport serves it.
 * Use it in a `@HealthCheck()` route: `() => this.mcp.isHealthy('mcp')`.
 */
@Injectable()
export class McpHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly server: McpServer,
  ) {}

  async isHealthy(key = 'mcp', server: McpServer = this.server): Promise<HealthIndicatorResult> {
    const indicator = this.health.check(key);
    const details = {
      server: server.name,
      registryLoaded: server.registry.isLoaded,
      transports: server.activeTransports,
      sessions: server.sessions.size,
    };
    return details.registryLoaded && details.transports.length ? indicator.up(details) : indicator.down(details);
  }
}

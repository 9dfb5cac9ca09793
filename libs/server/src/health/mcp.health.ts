import { Injectable } from '@nestjs/common';
import { McpHealthIndicatorResult, healthIndicatorResult } from '@conduit-mcp/core';
import { McpServer, hostOf } from '../mcp.server';

/**
 * Terminus health indicator of an MCP server: up when its registry is loaded and at least one transport serves it.
 * Use it in a `@HealthCheck()` route of a module that imports `TerminusModule`: `() => this.mcp.isHealthy('mcp')`.
 */
@Injectable()
export class McpHealthIndicator {
  constructor(private readonly server: McpServer) {}

  async isHealthy(key = 'mcp', server: McpServer = this.server): Promise<McpHealthIndicatorResult> {
    const host = hostOf(server);
    const details = {
      server: server.name,
      registryLoaded: host.registry.isLoaded,
      transports: host.activeTransports,
      sessions: host.sessions.size,
    };
    return healthIndicatorResult(key, details.registryLoaded && details.transports.length > 0, details);
  }
}

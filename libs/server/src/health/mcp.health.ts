import { Injectable } from '@nestjs/common';
import { McpHealthIndicatorResult, healthIndicatorResult } from '@conduit-mcp/core';
import { McpServer, hostOf } from '../mcp.server';

/**
 * Terminus health indicator of an MCP server: up when its registry is loaded, at least one transport serves it, and
 * every store and the event bus that report their health (an optional `health()`: the shared ones of
 * `@conduit-mcp/redis`) are up, each asked at once and counted down when it takes longer than 2 s. Their answers are
 * in the details under `state` (`sessionStore`, `eventStore`, `eventBus`, `taskStore`), absent when none reports.
 * Use it in a `@HealthCheck()` route of a module that imports `TerminusModule`: `() => this.mcp.isHealthy('mcp')`.
 */
@Injectable()
export class McpHealthIndicator {
  constructor(private readonly server: McpServer) {}

  async isHealthy(key = 'mcp', server: McpServer = this.server): Promise<McpHealthIndicatorResult> {
    const host = hostOf(server);
    const state = await host.stateHealth();
    const details: Record<string, unknown> = {
      server: server.name,
      registryLoaded: host.registry.isLoaded,
      transports: host.activeTransports,
      sessions: host.sessions.size,
    };
    if (state) details.state = state.parts;
    const up = host.registry.isLoaded && host.activeTransports.length > 0 && (state?.up ?? true);
    return healthIndicatorResult(key, up, details);
  }
}

import { Injectable } from '@nestjs/common';
import { McpHealthIndicatorResult, healthIndicatorResult } from '@conduit-mcp/core';
import { McpClients } from '../mcp-clients';

/**
 * Terminus health indicator of the app's MCP connections: pings each server (a discovery in the modern era) and
 * reports its state, era and revision; down when any server does not answer. Use it in a `@HealthCheck()` route of a
 * module that imports `TerminusModule`.
 */
@Injectable()
export class McpClientHealthIndicator {
  constructor(private readonly clients: McpClients) {}

  async isHealthy(key = 'mcp-clients', timeoutMs = 5_000): Promise<McpHealthIndicatorResult> {
    const servers = await Promise.all(
      this.clients.all().map(async (client) => {
        try {
          await client.ping({ timeout: timeoutMs });
          return {
            id: client.id,
            up: true,
            state: client.state,
            era: client.era,
            protocolVersion: client.protocolVersion,
          };
        } catch (error) {
          return { id: client.id, up: false, state: client.state, error: (error as Error).message };
        }
      }),
    );
    const details = Object.fromEntries(servers.map(({ id, ...rest }) => [id, rest]));
    return healthIndicatorResult(
      key,
      servers.every((server) => server.up),
      details,
    );
  }
}

import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { McpClient } from './connection/mcp-client';
import { ClientHandlerExplorer } from './handlers/client-handler.explorer';
import { McpClientModuleOptions } from './interfaces/mcp-client-options.interface';
import { MCP_CLIENT_OPTIONS } from './mcp-client.module-definition';
import { McpClientResponder } from './responder/mcp-client.responder';
import { ClientChecksResolver } from './safety/client-checks.resolver';
import { createClientTransport } from './transports/client-transport.factory';

/**
 * The connections of the app's MCP client, one per configured server. Discovers the handlers at start-up (so the
 * capabilities each connection declares are known), connects the servers marked `connectOnStart`, closes all at
 * shutdown.
 */
@Injectable()
export class McpClients implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpClient');
  private readonly clients = new Map<string, McpClient>();

  constructor(
    @Inject(MCP_CLIENT_OPTIONS) options: McpClientModuleOptions,
    private readonly responder: McpClientResponder,
    private readonly explorer: ClientHandlerExplorer,
    private readonly checks: ClientChecksResolver,
  ) {
    for (const server of options.servers) {
      if (this.clients.has(server.id)) throw new Error(`McpClientModule: two servers with the id "${server.id}"`);
      this.clients.set(
        server.id,
        new McpClient(server, options, responder, (transport) => createClientTransport(transport, options.name)),
      );
    }
  }

  /** The client of a server id; throws for an unknown id. */
  get(id: string): McpClient {
    const client = this.clients.get(id);
    if (!client) throw new Error(`No MCP server with the id "${id}" (known: ${[...this.clients.keys()].join(', ')})`);
    return client;
  }

  all(): McpClient[] {
    return [...this.clients.values()];
  }

  async onApplicationBootstrap(): Promise<void> {
    const handlers = this.explorer.explore(await this.checks.resolve());
    handlers.checkUnique([...this.clients.keys()]);
    this.responder.use(handlers);
    const starting = this.all().filter((client) => client.config.connectOnStart !== false);
    const results = await Promise.allSettled(starting.map((client) => client.connect()));
    results.forEach((result, index) => {
      if (result.status === 'rejected')
        this.logger.warn(
          `MCP server "${starting[index].id}" is not reachable yet: ${(result.reason as Error).message}`,
        );
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.all().map((client) => client.close()));
    await this.responder.drain();
  }
}

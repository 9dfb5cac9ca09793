import { resolveHttpAuth } from '../auth/http-auth.resolver';
import { McpServerTransportConfig } from '../interfaces/mcp-client-options.interface';
import { ClientTransport } from './client-transport.interface';
import { SseClientTransport } from './sse-client.transport';
import { StdioClientTransport } from './stdio-client.transport';
import { StreamableHttpClientTransport } from './streamable-http-client.transport';

/**
 * The transport a server's config names, with the default options; OAuth options in `auth` become the OAuth client
 * (`clientName` names it in a dynamic registration).
 */
export function createClientTransport(
  config: McpServerTransportConfig,
  clientName = 'conduit-mcp-client',
): ClientTransport {
  switch (config.type) {
    case 'stdio':
      return new StdioClientTransport({ command: config.command, args: config.args, env: config.env, cwd: config.cwd });
    case 'http':
    case 'sse': {
      const http = {
        url: config.url,
        headers: config.headers,
        auth: resolveHttpAuth(config.auth, config.url, clientName),
      };
      return config.type === 'http' ? new StreamableHttpClientTransport(http) : new SseClientTransport(http);
    }
    default:
      throw new Error(`Unknown MCP transport type: ${(config as { type: unknown }).type}`);
  }
}

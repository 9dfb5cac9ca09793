import { McpServerTransportConfig } from '../interfaces/mcp-client-options.interface';
import { ClientTransport } from './client-transport.interface';
import { SseClientTransport } from './sse-client.transport';
import { StdioClientTransport } from './stdio-client.transport';
import { StreamableHttpClientTransport } from './streamable-http-client.transport';

/** The transport a server's config names, with the default options. */
export function createClientTransport(config: McpServerTransportConfig): ClientTransport {
  switch (config.type) {
    case 'stdio':
      return new StdioClientTransport({ command: config.command, args: config.args, env: config.env, cwd: config.cwd });
    case 'http':
      return new StreamableHttpClientTransport({ url: config.url, headers: config.headers, auth: config.auth });
    case 'sse':
      return new SseClientTransport({ url: config.url, headers: config.headers, auth: config.auth });
    default:
      throw new Error(`Unknown MCP transport type: ${(config as { type: unknown }).type}`);
  }
}

import { INestApplicationContext, LogLevel, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { StdioTransport } from '@conduit-mcp/core';
import { getMcpServerToken } from '../../mcp-server.token';
import { McpServer, hostOf } from '../../mcp.server';
import { StderrLogger } from './stderr.logger';

/** Options of `McpStdio.run`. */
export interface McpStdioOptions {
  /** Which server to serve when the app has several (its `name`). Default: the module's `McpServer`. */
  server?: string;
  /** Log levels written to stderr. Default: log, warn, error. */
  logLevels?: LogLevel[];
}

/**
 * Serves an app's MCP server over stdio: one session on stdin/stdout, logs on stderr (including `console.log`,
 * which would otherwise corrupt the protocol stream). The app context closes when stdin ends.
 */
export class McpStdio {
  static async run(module: Type<unknown>, options: McpStdioOptions = {}): Promise<INestApplicationContext> {
    console.log = console.error;
    console.info = console.error;
    const app = await NestFactory.createApplicationContext(module, {
      logger: new StderrLogger({ logLevels: options.logLevels ?? ['log', 'warn', 'error'] }),
    });
    app.enableShutdownHooks();
    const server = app.get<McpServer>(options.server ? getMcpServerToken(options.server) : McpServer, {
      strict: false,
    });
    const transport = new StdioTransport(process.stdin, process.stdout);
    const session = hostOf(server).connect(transport, 'stdio');
    session.onClose(() => void app.close());
    transport.start();
    return app;
  }
}

import { INestApplicationContext, LogLevel, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { StdioTransport } from '@conduit-mcp/core';
import { getMcpServerToken } from '../../mcp-server.token';
import { McpServer, hostOf } from '../../mcp.server';
import { SHUTDOWN_SETTLE_MS } from '../../shutdown/mcp-graceful.shutdown';
import { StderrLogger } from './stderr.logger';
import { reserveStdoutForProtocol } from './stdout.guard';

/** Options of `McpStdio.run`. */
export interface McpStdioOptions {
  /** Which server to serve when the app has several (its `name`). Default: the module's `McpServer`. */
  server?: string;
  /** Log levels written to stderr. Default: log, warn, error. */
  logLevels?: LogLevel[];
}

/**
 * Serves an app's MCP server over stdio: one session on stdin/stdout, logs on stderr (with `console.*` and stray
 * `process.stdout.write` calls, which would otherwise corrupt the protocol stream). Reading stdin pauses while stdout
 * is full, so a client that does not read cannot make the server buffer answers without end. When stdin ends the
 * app closes and the process exits; SIGTERM and SIGINT close the app (requests in flight get `shutdownGraceMs`),
 * then the process exits with 0.
 */
export class McpStdio {
  /**
   * Creates the app (a Nest application context, no HTTP server) and serves its MCP server on stdin/stdout until stdin
   * ends or a signal arrives. Resolves with the app once it serves.
   *
   * @example
   * ```ts
   * // main.ts: a desktop client starts `node dist/main.js`
   * import { McpStdio } from '@conduit-mcp/server';
   * import { AppModule } from './app.module';
   *
   * void McpStdio.run(AppModule, { logLevels: ['warn', 'error'] });
   * ```
   */
  static async run(module: Type<unknown>, options: McpStdioOptions = {}): Promise<INestApplicationContext> {
    // Made before stdout is reserved: the transport takes stdout's own `write`, the rest of the process gets stderr's.
    const transport = new StdioTransport(process.stdin, process.stdout, { pauseInputWhileOutputFull: true });
    reserveStdoutForProtocol();
    const app = await NestFactory.createApplicationContext(module, {
      logger: new StderrLogger({ logLevels: options.logLevels ?? ['log', 'warn', 'error'] }),
    });
    app.enableShutdownHooks([], { useProcessExit: true });
    const server = app.get<McpServer>(options.server ? getMcpServerToken(options.server) : McpServer, {
      strict: false,
    });
    const host = hostOf(server);
    const session = host.connect(transport, 'stdio');
    session.onClose(() => {
      // The session also ends when a signal shuts the app down: Nest then closes it and exits.
      if (!host.stopping) void exitAfter(app.close());
    });
    transport.start();
    return app;
  }
}

// Exits once the app is closed and what it wrote reached stdout (for a while at most: the client may not read any
// more). A handler that ignores its cancelled signal, or a timer left behind, does not keep the process alive.
async function exitAfter(closing: Promise<void>): Promise<void> {
  try {
    await closing;
  } catch {
    process.exitCode = 1;
  }
  const deadline = Date.now() + SHUTDOWN_SETTLE_MS;
  while (process.stdout.writableLength > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.exit();
}

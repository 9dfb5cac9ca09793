import { INestApplicationContext, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import {
  McpClient,
  McpClientHealthIndicator,
  McpClientModule,
  McpClientModuleOptions,
  McpClients,
  McpServerConfig,
} from '@conduit-mcp/client';
import { RecordingHandlers } from './client-recording.handlers';

/** A Nest app whose MCP client talks to one server, with recording handlers of every kind. */
export interface ClientApp<H = RecordingHandlers> {
  app: INestApplicationContext;
  client: McpClient;
  handlers: H;
  health: McpClientHealthIndicator;
  close(): Promise<void>;
}

/**
 * Builds and starts (connecting the server) an app context importing
 * `McpClientModule.forRoot({ name: 'e2e-client', servers: [server] })` and `TerminusModule`, with
 * {@link RecordingHandlers} (or the `handlers` class given) as its only provider. `options` overrides the module's
 * other options.
 */
export async function startClientApp<H = RecordingHandlers>(
  server: McpServerConfig,
  options: Partial<Omit<McpClientModuleOptions, 'servers'>> = {},
  handlers: Type<H> = RecordingHandlers as unknown as Type<H>,
): Promise<ClientApp<H>> {
  @Module({
    imports: [
      McpClientModule.forRoot({ name: 'e2e-client', version: '1.0.0', ...options, servers: [server] }),
      TerminusModule,
    ],
    providers: [handlers],
  })
  class ClientTestModule {}

  const app = await NestFactory.createApplicationContext(ClientTestModule, { logger: false });
  await app.init();
  const client = app.get(McpClients).get(server.id);
  return {
    app,
    client,
    handlers: app.get(handlers),
    health: app.get(McpClientHealthIndicator),
    close: () => app.close(),
  };
}

/** Polls `check` until it returns a truthy value (returned) or `timeoutMs` passes (throws, naming `what`). */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | null,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

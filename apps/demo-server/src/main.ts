import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpStdio } from '@conduit-mcp/server';
import { AppModule } from './app.module';

async function bootstrap(): Promise<void> {
  if (process.argv.includes('--stdio')) {
    await McpStdio.run(AppModule);
    return;
  }
  const app = await NestFactory.create(AppModule);
  // SIGTERM/SIGINT: the MCP server drains (within shutdownGraceMs), the app closes, the process exits with 0.
  app.enableShutdownHooks([], { useProcessExit: true });
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port, '127.0.0.1');
  Logger.log(`MCP endpoint: ${await app.getUrl()}/mcp · health: ${await app.getUrl()}/health`, 'DemoServer');
}

void bootstrap();

import { NestFactory } from '@nestjs/core';
import { McpTaskWorker } from '@conduit-mcp/redis';
import { AppModule } from './app.module';

// The task worker: the same module as the instances, booted without HTTP, running the durable tools' queued tasks.
async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule);
  app.enableShutdownHooks(); // on SIGTERM its running tasks end failed; tasks not started stay queued
  await app.get(McpTaskWorker).start('notes', { concurrency: 8 });
}

void main();

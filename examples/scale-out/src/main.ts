import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks();
  // MCP_HOST: the interface to serve on. The compose file gives each container its own hostname, which resolves to
  // its address on the compose network; outside a container the default keeps the server on the loopback interface.
  await app.listen(Number(process.env.PORT ?? 3000), process.env.MCP_HOST ?? '127.0.0.1');
}

void main();

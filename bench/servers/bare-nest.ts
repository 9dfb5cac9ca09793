// The cold-start baseline: a bare Nest + Express app with one `POST /echo` route that returns the JSON body it got.
// No MCP at all, logger off, so "this project ÷ bare Nest" isolates what McpModule adds to start-up.
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

@Controller()
class EchoController {
  @Post('echo')
  @HttpCode(200)
  echo(@Body() body: unknown) {
    return body;
  }
}

@Module({ controllers: [EchoController] })
class BareModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(BareModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`READY ${app.getHttpServer().address().port}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
void main().catch((error) => {
  console.error(error);
  process.exit(1);
});

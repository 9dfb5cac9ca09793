// @rekog/mcp-nest 2.x as its README shows: McpStrategy + StreamableHttpTransport, an @McpController tool with the
// same trivial guard and interceptor. BENCH_MODE=legacy turns on its stateful (session) mode.
import 'reflect-metadata';
import { Module, UseGuards, UseInterceptors } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AllowGuard, PassInterceptor } from './trivial.enhancers';
import { Payload } from '@nestjs/microservices';
import { McpController, McpStrategy, StreamableHttpTransport, Tool } from '@rekog/mcp-nest';
import { z } from 'zod';

@McpController()
class EchoController {
  @Tool({ name: 'echo', description: 'Echoes its text', parameters: z.object({ text: z.string() }) })
  @UseGuards(AllowGuard)
  @UseInterceptors(PassInterceptor)
  echo(@Payload() { text }: { text: string }) {
    return { content: [{ type: 'text', text }] };
  }
}

const mcp = new McpStrategy({
  name: 'bench',
  version: '1',
  transports: [new StreamableHttpTransport(process.env.BENCH_MODE === 'legacy' ? { statefulMode: true } : {})],
} as any);

@Module({ controllers: [EchoController], providers: [AllowGuard, PassInterceptor] })
class BenchModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(BenchModule, { logger: false });
  mcp.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy: mcp });
  await app.startAllMicroservices();
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`READY ${app.getHttpServer().address().port}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
void main().catch((error) => {
  console.error(error);
  process.exit(1);
});

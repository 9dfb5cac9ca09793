// @rekog/mcp-nest 2.x as its README shows: McpStrategy + StreamableHttpTransport, an @McpController tool with the
// same trivial guard and interceptor. BENCH_MODE=legacy turns on its stateful (session) mode.
import 'reflect-metadata';
import { Module, UseGuards, UseInterceptors } from '@nestjs/common';
import { serveNest } from './serve-nest';
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

serveNest(BenchModule, async (app) => {
  mcp.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy: mcp });
  await app.startAllMicroservices();
});

// This project: McpModule with one `echo` tool behind a trivial guard and interceptor.
// BENCH_TOOLS=n registers n-1 more tools (for the tools/list scenarios).
import 'reflect-metadata';
import { Injectable, Module, UseGuards, UseInterceptors } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AllowGuard, PassInterceptor } from './trivial.enhancers';
import { McpArgs, McpModule, McpTool } from '@conduit-mcp/server';

const input = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;

@Injectable()
class EchoTools {
  @McpTool({ name: 'echo', description: 'Echoes its text', input })
  @UseGuards(AllowGuard)
  @UseInterceptors(PassInterceptor)
  echo(@McpArgs() args: { text: string }) {
    return args.text;
  }
}

const extra = Math.max(0, Number(process.env.BENCH_TOOLS ?? 1) - 1);
const extraProviders: any[] = [];
if (extra > 0) {
  class ExtraTools {}
  for (let i = 0; i < extra; i++) {
    const name = `tool_${i}`;
    (ExtraTools.prototype as any)[name] = function (args: { text: string }) {
      return args.text;
    };
    const descriptor = Object.getOwnPropertyDescriptor(ExtraTools.prototype, name)!;
    McpTool({ name, description: `Extra tool number ${i}, echoes its text`, input })(ExtraTools.prototype, name, descriptor);
    McpArgs()(ExtraTools.prototype, name, 0);
  }
  Injectable()(ExtraTools);
  extraProviders.push(ExtraTools);
}

@Module({
  imports: [McpModule.forRoot({ name: 'bench', version: '1', http: { path: '/mcp' } })],
  providers: [EchoTools, AllowGuard, PassInterceptor, ...extraProviders],
})
class BenchModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(BenchModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  process.stdout.write(`READY ${address.port}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
void main().catch((error) => {
  console.error(error);
  process.exit(1);
});

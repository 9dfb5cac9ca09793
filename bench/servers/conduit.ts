// This project: McpModule with one `echo` tool behind a trivial guard and interceptor.
// BENCH_TOOLS=n registers n-1 more tools (for the tools/list scenarios).
// BENCH_MRTR=1 adds `ask`, which asks the client one form elicitation (an MRTR round trip in the modern era).
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { serveNest } from './serve-nest';
import { McpArgs, McpCtx, McpModule, McpRequestContext, McpTool } from '@conduit-mcp/server';
import { ECHO_INPUT as input, ECHO_PROVIDERS } from './echo.tools';

const extraProviders: any[] = [];

// Asks one question and answers with what it got: a modern call takes two HTTP requests (input_required, then the retry).
@Injectable()
class AskTools {
  @McpTool({ name: 'ask', description: 'Asks the client one question', input })
  async ask(@McpArgs() args: { text: string }, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('q', {
      message: args.text,
      requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
    });
    return answer.action === 'accept' ? String(answer.content?.answer) : answer.action;
  }
}
if (process.env.BENCH_MRTR === '1') extraProviders.push(AskTools);

const extra = Math.max(0, Number(process.env.BENCH_TOOLS ?? 1) - 1);
if (extra > 0) {
  class ExtraTools {}
  for (let i = 0; i < extra; i++) {
    const name = `tool_${i}`;
    (ExtraTools.prototype as any)[name] = function (args: { text: string }) {
      return args.text;
    };
    const descriptor = Object.getOwnPropertyDescriptor(ExtraTools.prototype, name)!;
    McpTool({ name, description: `Extra tool number ${i}, echoes its text`, input })(
      ExtraTools.prototype,
      name,
      descriptor,
    );
    McpArgs()(ExtraTools.prototype, name, 0);
  }
  Injectable()(ExtraTools);
  extraProviders.push(ExtraTools);
}

@Module({
  // Every bench client is one anonymous address: the sessions section opens 10 000 sessions from it.
  imports: [
    McpModule.forRoot({ name: 'bench', version: '1', http: { path: '/mcp', maxSessionsPerPrincipal: 10_000 } }),
  ],
  providers: [...ECHO_PROVIDERS, ...extraProviders],
})
class BenchModule {}

serveNest(BenchModule);

// An MCP server with long-running tools, for test/graceful-shutdown.e2e-spec.ts; run on ts-node by ScenarioProcess.
// `--stdio`, or `--adapter express|fastify --mount server|express|fastify` (HTTP on 127.0.0.1, a free port, reported on
// stderr as `listening <port>`). SHUTDOWN_GRACE_MS sets `shutdownGraceMs`.
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { McpArgs, McpCtx, McpModule, McpRequestContext, McpStdio, McpTool } from '@conduit-mcp/server';

/** This app's file, for `new ScenarioProcess(SHUTDOWN_APP, …)`. */
export const SHUTDOWN_APP = __filename;

const WAIT_INPUT = { type: 'object', properties: { ms: { type: 'integer', minimum: 1 } }, required: ['ms'] } as const;

@Injectable()
class ShutdownScenarioTools {
  @McpTool({ name: 'wait', description: 'Waits `ms`, or until it is cancelled.', input: WAIT_INPUT })
  async wait(@McpArgs() args: { ms: number }, @McpCtx() ctx: McpRequestContext) {
    process.stderr.write(`started ${JSON.stringify(ctx.requestId)}\n`);
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, args.ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        const reason = ctx.signal.reason as Error | undefined;
        process.stderr.write(`aborted ${JSON.stringify(ctx.requestId)}: ${reason?.message}\n`);
        reject(reason);
      });
    });
    return `Waited ${args.ms} ms.`;
  }

  @McpTool({ name: 'stubborn', description: 'Waits `ms` whatever happens: it ignores its signal.', input: WAIT_INPUT })
  async stubborn(@McpArgs() args: { ms: number }, @McpCtx() ctx: McpRequestContext) {
    process.stderr.write(`started ${JSON.stringify(ctx.requestId)}\n`);
    await new Promise((resolve) => setTimeout(resolve, args.ms));
    return `Waited ${args.ms} ms.`;
  }
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

async function main(): Promise<void> {
  const mount = (argument('mount') ?? 'server') as 'server' | 'express' | 'fastify';
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'shutdown-scenario',
        version: '0.0.1',
        http: { path: '/mcp', mount },
        shutdownGraceMs: Number(process.env.SHUTDOWN_GRACE_MS ?? 10_000),
      }),
    ],
    providers: [ShutdownScenarioTools],
  })
  class ShutdownScenarioModule {}

  if (process.argv.includes('--stdio')) {
    await McpStdio.run(ShutdownScenarioModule);
    return;
  }
  const options = { logger: ['log', 'warn', 'error'] as Array<'log' | 'warn' | 'error'> };
  const app =
    argument('adapter') === 'fastify'
      ? await NestFactory.create(ShutdownScenarioModule, new FastifyAdapter(), options)
      : await NestFactory.create(ShutdownScenarioModule, options);
  app.enableShutdownHooks([], { useProcessExit: true });
  await app.listen(0, '127.0.0.1');
  process.stderr.write(`listening ${(app.getHttpServer().address() as { port: number }).port}\n`);
}

if (require.main === module) void main();

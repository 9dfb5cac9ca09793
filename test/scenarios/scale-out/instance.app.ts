// One instance of a scaled-out MCP server, for test/scenarios/scale-out/: run on ts-node by ScenarioProcess as a
// separate process. Its state is in Redis (REDIS_URL, KEY_PREFIX); HTTP on 127.0.0.1, a free port (or PORT), reported
// on stderr as `listening <port>`; `/health` answers the Terminus health check. `--worker` runs the task worker of the
// same app instead (no HTTP), reporting `worker ready`.
import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import {
  McpArgs,
  McpCtx,
  McpHealthIndicator,
  McpModule,
  McpRequestContext,
  McpResource,
  McpServer,
  McpTool,
} from '@conduit-mcp/server';
import { McpRedis, McpRedisModule, McpTaskWorker } from '@conduit-mcp/redis';

/** This app's file, for `new ScenarioProcess(SCALE_OUT_APP, …)`. */
export const SCALE_OUT_APP = __filename;

const TAG = process.env.INSTANCE ?? String(process.pid);

const STEPS_INPUT = {
  type: 'object',
  properties: { steps: { type: 'integer', minimum: 1, maximum: 1000 }, gapMs: { type: 'integer', minimum: 0 } },
  required: ['steps'],
} as const;

@Injectable()
class ScaleOutTools {
  constructor(private readonly server: McpServer) {}

  @McpTool({ name: 'whoami', description: 'Names the instance that ran the call and the session it ran in' })
  whoami(@McpCtx() ctx: McpRequestContext) {
    return { instance: TAG, session: ctx.sessionId ?? null };
  }

  @McpTool({ name: 'ask', description: 'Asks the client for a word, and names the instance that asked' })
  async ask(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('word', {
      message: 'A word?',
      requestedSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    });
    return `${TAG} got ${String(answer.content?.word)}`;
  }

  @McpTool({ name: 'wait', description: 'Waits until cancelled, then says so on stderr' })
  async wait(@McpCtx() ctx: McpRequestContext) {
    process.stderr.write(`waiting ${JSON.stringify(ctx.requestId)}\n`);
    await ctx.log('info', 'waiting'); // opens the SSE answer
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    process.stderr.write(`cancelled ${JSON.stringify(ctx.requestId)}: ${(ctx.signal.reason as Error).message}\n`);
    return 'cancelled';
  }

  @McpTool({ name: 'count', description: 'Logs `steps` messages `gapMs` apart, then answers', input: STEPS_INPUT })
  async count(@McpArgs() args: { steps: number; gapMs?: number }, @McpCtx() ctx: McpRequestContext) {
    for (let step = 1; step <= args.steps; step++) {
      await ctx.log('info', `step ${step}`);
      if (args.gapMs) await new Promise((resolve) => setTimeout(resolve, args.gapMs));
    }
    return `${TAG} counted ${args.steps}`;
  }

  @McpTool({ name: 'touch_notes', description: 'Tells subscribers that notes://index changed' })
  async touchNotes() {
    await this.server.notifyResourceUpdated('notes://index');
    return `${TAG} touched notes://index`;
  }

  @McpTool({
    name: 'toggle_extra',
    description: 'Enables or disables the extra tool (a tools list change)',
    input: { type: 'object', properties: { enabled: { type: 'boolean' } }, required: ['enabled'] },
  })
  toggleExtra(@McpArgs() args: { enabled: boolean }) {
    this.server.setToolEnabled('extra', args.enabled);
    return `${TAG} extra ${args.enabled ? 'on' : 'off'}`;
  }

  @McpTool({ name: 'extra', description: 'A tool that comes and goes' })
  extra() {
    return 'extra';
  }

  @McpTool({
    name: 'report',
    description: 'A durable task: waits `ms`, then names the process that ran it (a worker)',
    task: 'optional',
    durable: true,
    input: { type: 'object', properties: { ms: { type: 'integer', minimum: 0, maximum: 60_000 } }, required: ['ms'] },
  })
  async report(@McpArgs() args: { ms: number }, @McpCtx() ctx: McpRequestContext) {
    process.stderr.write(`report running\n`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, args.ms);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(ctx.signal.reason)), { once: true });
    });
    return `report by ${TAG}`;
  }

  @McpResource({ uri: 'notes://index', name: 'index', description: 'The notes' })
  notes() {
    return 'the notes';
  }
}

@Controller()
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mcp: McpHealthIndicator,
  ) {}

  @Get('health')
  @HealthCheck()
  check() {
    return this.health.check([() => this.mcp.isHealthy('mcp')]);
  }
}

@Module({
  imports: [
    McpRedisModule.forRoot({ url: process.env.REDIS_URL, keyPrefix: process.env.KEY_PREFIX ?? 'scale-out:' }),
    McpModule.forRootAsync({
      inject: [McpRedis],
      useFactory: (redis: McpRedis) => ({
        name: 'scale-out',
        version: '1.0.0',
        requestState: { secret: process.env.REQUEST_STATE_SECRET ?? 'scale-out scenario shared secret' },
        ...redis.state('scale-out'),
      }),
    }),
    TerminusModule,
  ],
  controllers: [HealthController],
  providers: [ScaleOutTools, McpHealthIndicator],
})
class ScaleOutModule {}

async function main(): Promise<void> {
  const logger = ['warn', 'error'] as Array<'warn' | 'error'>;
  if (process.argv.includes('--worker')) {
    const worker = await NestFactory.createApplicationContext(ScaleOutModule, { logger });
    worker.enableShutdownHooks();
    await worker.get(McpTaskWorker).start('scale-out', { concurrency: 4 });
    process.stderr.write('worker ready\n');
    return;
  }
  const app = await NestFactory.create(ScaleOutModule, { logger });
  app.enableShutdownHooks([], { useProcessExit: true });
  await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  process.stderr.write(`listening ${(app.getHttpServer().address() as { port: number }).port}\n`);
}

if (require.main === module) void main();

// This project: McpModule with one `echo` tool behind a trivial guard and interceptor.
// BENCH_TOOLS=n registers n-1 more tools (for the tools/list scenarios).
// BENCH_MRTR=1 adds `ask`, which asks the client one form elicitation (an MRTR round trip in the modern era).
// BENCH_STORE=redis keeps sessions, streams, the event bus and tasks on Redis (REDIS_URL, keys under BENCH_KEY_PREFIX).
// BENCH_OBSERVE=context,metrics,tracing subscribes @conduit-mcp/metrics (the observability section).
// BENCH_FANOUT=1 adds fanout, loop_stats, toggle (bench/servers/fanout.tools.ts: the fanout section).
// BENCH_PROGRESS=1 adds `progress` (bench/servers/progress.tools.ts: the streaming section).
// BENCH_MAX_SESSIONS / BENCH_MAX_CONNECTIONS raise the session and connection bounds (see below).
// BENCH_TICK=1 adds `tick` and the resource template it announces (the scale-out section's notification latency).
import 'reflect-metadata';
import { DynamicModule, Injectable, Module } from '@nestjs/common';
import { serveNest } from './serve-nest';
import {
  McpArgs,
  McpCtx,
  McpModule,
  McpModuleOptions,
  McpRequestContext,
  McpResource,
  McpServer,
  McpTool,
} from '@conduit-mcp/server';
import { ECHO_INPUT as input, ECHO_PROVIDERS } from './echo.tools';
import { FANOUT_PROVIDERS } from './fanout.tools';
import { PROGRESS_PROVIDERS } from './progress.tools';

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

const TICK_INPUT = {
  type: 'object',
  properties: { seq: { type: 'integer', minimum: 0, maximum: 1_000_000 } },
  required: ['seq'],
} as const;

// Announces an update of bench://tick/<seq> to every stream watching it, on every instance (through the event bus),
// and answers with the moment it published: the monotonic clock in ns (process.hrtime, CLOCK_MONOTONIC on Linux),
// which every process of the machine reads alike, so that the driver can time publish → arrival on a stream another
// process holds. (Not performance.timeOrigin: each process fixes its own at start-up, and two processes disagree.)
@Injectable()
class TickTools {
  constructor(private readonly server: McpServer) {}

  @McpTool({ name: 'tick', description: 'Announces an update of bench://tick/<seq>', input: TICK_INPUT })
  async tick(@McpArgs() args: { seq: number }) {
    const publishedAt = process.hrtime.bigint();
    await this.server.notifyResourceUpdated(`bench://tick/${args.seq}`);
    return String(publishedAt);
  }

  @McpResource({ uri: 'bench://tick/{seq}', name: 'tick', description: 'What `tick` announces' })
  read(@McpArgs() args: { seq: string }) {
    return `tick ${args.seq}`;
  }
}
if (process.env.BENCH_TICK === '1') extraProviders.push(TickTools);
if (process.env.BENCH_FANOUT === '1') extraProviders.push(...FANOUT_PROVIDERS);
if (process.env.BENCH_PROGRESS === '1') extraProviders.push(...PROGRESS_PROVIDERS);

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

// Every bench client is one anonymous address: the sessions section opens 10 000 sessions from it.
// BENCH_MAX_SESSIONS=n sets both http.maxSessions and http.maxSessionsPerPrincipal to n (the session-scale section
// holds 50 000); unset keeps the defaults (maxSessions 10 000, the per-principal bound raised to 10 000).
function sessionBounds(): { maxSessions?: number; maxSessionsPerPrincipal: number } {
  const raw = process.env.BENCH_MAX_SESSIONS;
  if (raw === undefined || raw === '') return { maxSessionsPerPrincipal: 10_000 };
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_MAX_SESSIONS must be an integer >= 1 (got "${raw.slice(0, 40)}")`);
  return { maxSessions: n, maxSessionsPerPrincipal: n };
}

// BENCH_MAX_CONNECTIONS=n raises the connection caps (http.connections: 1 024 in all, 128 per client address by
// default) to n: the connections and fan-out sections hold more than 128 connections from the one bench address.
const maxConnections = (() => {
  const raw = process.env.BENCH_MAX_CONNECTIONS;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_MAX_CONNECTIONS must be an integer >= 1 (got "${raw.slice(0, 40)}")`);
  return n;
})();

const MCP_OPTIONS: McpModuleOptions = {
  name: 'bench',
  version: '1',
  http: {
    path: '/mcp',
    ...sessionBounds(),
    ...(maxConnections && { connections: { max: maxConnections, maxPerAddress: maxConnections } }),
  },
  // Each subscriptions/listen stream holds a connection: BENCH_MAX_CONNECTIONS bounds them too (default 1 000).
  ...(maxConnections && { maxSubscriptions: maxConnections }),
};

// The Redis module is imported only with BENCH_STORE=redis, so that the other servers do not load ioredis at all.
async function mcpImports(): Promise<DynamicModule[]> {
  const store = process.env.BENCH_STORE;
  if (store === undefined || store === '') return [McpModule.forRoot(MCP_OPTIONS)];
  if (store !== 'redis') throw new Error(`BENCH_STORE must be "redis" or unset (got "${store.slice(0, 40)}")`);
  const keyPrefix = process.env.BENCH_KEY_PREFIX;
  if (!keyPrefix) throw new Error('BENCH_STORE=redis needs BENCH_KEY_PREFIX: a key prefix of its own for this run');
  const { McpRedis, McpRedisModule } = await import('@conduit-mcp/redis');
  return [
    McpRedisModule.forRoot({ url: process.env.REDIS_URL, keyPrefix }),
    McpModule.forRootAsync({
      inject: [McpRedis],
      useFactory: (redis: InstanceType<typeof McpRedis>) => ({ ...MCP_OPTIONS, ...redis.state(MCP_OPTIONS.name) }),
    }),
  ];
}

// BENCH_OBSERVE (a comma-separated list) for the observability section. `context`: the OpenTelemetry context manager
// (AsyncLocalStorage) with every HTTP request run in a context of its own, as OpenTelemetry's HTTP instrumentation
// does in an app already traced; `metrics`: McpMetricsModule with its /metrics route; `tracing`: McpTracingModule into
// an SDK tracer provider whose batch processor drops the spans (the cost of making them, not of shipping them).
// Loaded only when asked for.
async function observeImports(): Promise<DynamicModule[]> {
  const wanted = (process.env.BENCH_OBSERVE ?? '').split(',').filter(Boolean);
  const unknown = wanted.filter((w) => !['context', 'metrics', 'tracing'].includes(w));
  if (unknown.length) throw new Error(`BENCH_OBSERVE takes context, metrics, tracing (got "${unknown.join(',')}")`);
  const imports: DynamicModule[] = [];
  if (wanted.includes('context') || wanted.includes('tracing')) {
    const { context, createContextKey } = await import('@opentelemetry/api');
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    if (wanted.includes('context')) {
      const http = await import('node:http');
      const emit = http.Server.prototype.emit as (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;
      const request = createContextKey('bench http request');
      http.Server.prototype.emit = function (this: unknown, event: string | symbol, ...args: unknown[]) {
        if (event !== 'request') return emit.apply(this, [event, ...args]);
        return context.with(context.active().setValue(request, args[0]), () => emit.apply(this, [event, ...args]));
      };
    }
  }
  if (wanted.includes('metrics')) {
    const { McpMetricsModule } = await import('@conduit-mcp/metrics');
    imports.push(McpMetricsModule.forRoot({ route: true }));
  }
  if (wanted.includes('tracing')) {
    const { McpTracingModule } = await import('@conduit-mcp/metrics');
    const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
    const dropped = { export: (_spans: unknown[], done: (r: { code: number }) => void) => done({ code: 0 }) };
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor({ ...dropped, shutdown: async () => undefined })],
    });
    imports.push(McpTracingModule.forRoot({ tracerProvider }));
  }
  return imports;
}

Promise.all([mcpImports(), observeImports()]).then(
  ([mcp, observe]) => {
    const imports = [...mcp, ...observe];
    @Module({ imports, providers: [...ECHO_PROVIDERS, ...extraProviders] })
    class BenchModule {}
    serveNest(BenchModule);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

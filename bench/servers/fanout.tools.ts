// The fanout section's tools (conduit.ts, BENCH_FANOUT=1): `fanout` publishes one resource update to every stream
// watching bench://fanout/<seq> and answers with the moment it did; `loop_stats` reports what the server's event loop
// and CPU did since its last reset (and the heap after a GC when node runs with --expose-gc); `toggle` hides or shows
// `fanout_dummy`, which tells every session and stream that the tool list changed.
import { Injectable } from '@nestjs/common';
import { IntervalHistogram, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { McpArgs, McpResource, McpServer, McpTool } from '@conduit-mcp/server';

const SEQ_INPUT = {
  type: 'object',
  properties: { seq: { type: 'integer', minimum: 0, maximum: 1_000_000 } },
  required: ['seq'],
} as const;
const RESET_INPUT = {
  type: 'object',
  properties: { reset: { type: 'boolean' } },
  required: ['reset'],
} as const;
const NO_INPUT = { type: 'object', properties: {} } as const;

type EventLoopUtilization = ReturnType<typeof performance.eventLoopUtilization>;

// Figures since the last `loop_stats {reset: true}`.
let delay: IntervalHistogram | undefined;
let cpuMark: NodeJS.CpuUsage = process.cpuUsage();
let eluMark: EventLoopUtilization = performance.eventLoopUtilization();

// conduit.ts imports this file whatever its env: the 1 ms delay sampler (a timer of its own, which costs a little CPU)
// starts only in a server that registers these tools.
function startSampling(): void {
  if (delay) return;
  delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  cpuMark = process.cpuUsage();
  eluMark = performance.eventLoopUtilization();
}

/** The heap in use after a full GC, when node exposes `gc` (--expose-gc); undefined otherwise. */
function heapAfterGc(): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return undefined;
  gc();
  return process.memoryUsage().heapUsed;
}

@Injectable()
class FanoutTools {
  private dummyEnabled = true;

  constructor(private readonly server: McpServer) {
    startSampling();
  }

  // The publish moment is the machine's monotonic clock in ns (CLOCK_MONOTONIC on Linux, which the driver's process
  // reads alike): the driver times publish → arrival on each of its streams from it.
  @McpTool({ name: 'fanout', description: 'Announces an update of bench://fanout/<seq>', input: SEQ_INPUT })
  async fanout(@McpArgs() args: { seq: number }) {
    const publishedAt = process.hrtime.bigint();
    await this.server.notifyResourceUpdated(`bench://fanout/${args.seq}`);
    const publishMs = Number(process.hrtime.bigint() - publishedAt) / 1e6;
    return JSON.stringify({ publishedAt: String(publishedAt), publishMs });
  }

  @McpResource({ uri: 'bench://fanout/{seq}', name: 'fanout', description: 'What `fanout` announces' })
  read(@McpArgs() args: { seq: string }) {
    return `fanout ${args.seq}`;
  }

  // The figures are taken before the GC (whose cost is then not in them), the marks are set after it (so the next
  // interval does not carry it either).
  @McpTool({
    name: 'loop_stats',
    description: 'Event loop, CPU and heap figures since the last reset',
    input: RESET_INPUT,
  })
  loopStats(@McpArgs() args: { reset: boolean }) {
    const cpu = process.cpuUsage(cpuMark);
    const elu = performance.eventLoopUtilization(eluMark);
    const stats = {
      maxDelayMs: delay && delay.count > 0 ? delay.max / 1e6 : 0,
      cpuUs: cpu.user + cpu.system,
      cpuUserUs: cpu.user,
      cpuSystemUs: cpu.system,
      elu: elu.utilization,
      activeMs: elu.active,
      heapUsed: heapAfterGc(),
    };
    if (args.reset) {
      delay?.reset();
      cpuMark = process.cpuUsage();
      eluMark = performance.eventLoopUtilization();
    }
    return JSON.stringify(stats);
  }

  @McpTool({ name: 'toggle', description: 'Hides or shows fanout_dummy (a tools list change)', input: NO_INPUT })
  toggle() {
    this.dummyEnabled = !this.dummyEnabled;
    if (!this.server.setToolEnabled('fanout_dummy', this.dummyEnabled)) throw new Error('fanout_dummy is not there');
    return String(this.dummyEnabled);
  }

  @McpTool({ name: 'fanout_dummy', description: 'Does nothing: `toggle` hides and shows it', input: NO_INPUT })
  dummy() {
    return 'dummy';
  }
}

/** The providers conduit.ts registers with BENCH_FANOUT=1. */
export const FANOUT_PROVIDERS = [FanoutTools];

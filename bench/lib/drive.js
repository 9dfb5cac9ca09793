'use strict';
// One driver process: node bench/lib/drive.js '<json spec>' opens one client against one server, probes it, warms it
// up, runs each in-flight count twice and prints `RESULT <json>` on stdout. A process of its own per client, so no
// client's heap or JIT state leaks into another's figures, and `--cpu-prof` profiles exactly one client.
// spec: { client: 'raw'|'conduit'|'sdk'|'baseline', baselineBuild? (the baseline's bench/.build), target: { type: 'stdio', server } | { type: 'http', url }, warmup, duration, inflight: [1, 32], runs? (2) }
const { openClient } = require('./clients');
const { closedLoop } = require('./calls');

const TEXT = 'hello bench';
const spec = JSON.parse(process.argv[2]);
const log = (...a) => console.error(`[drive ${spec.client}]`, ...a);

async function main() {
  const client = await openClient(spec.client, spec.target, spec.baselineBuild);
  const stop = () => void client.close().finally(() => process.exit(130));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    const probe = await client.call(TEXT);
    const text = probe && Array.isArray(probe.content) && probe.content[0] && probe.content[0].text;
    if (text !== TEXT || probe.isError)
      throw new Error(`probe: unexpected answer ${JSON.stringify(probe).slice(0, 300)}`);
    await closedLoop(client.call, TEXT, Math.max(...spec.inflight), spec.warmup);
    const rows = [];
    for (const inflight of spec.inflight) {
      const runs = [];
      for (let i = 0; i < (spec.runs ?? 2); i++) {
        const r = await closedLoop(client.call, TEXT, inflight, spec.duration);
        log(
          `in flight ${inflight} run ${i + 1}: ${r.cps} calls/s, ${r.cpuUsPerCall} µs CPU/call, ${r.errors} errors${r.firstError ? ` (${r.firstError})` : ''}`,
        );
        runs.push(r);
      }
      rows.push({ inflight, runs });
    }
    process.stdout.write(`RESULT ${JSON.stringify(rows)}\n`);
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

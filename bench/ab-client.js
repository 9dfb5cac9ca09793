'use strict';
// node bench/ab-client.js <commit> [stdio|http] [pairs]: this tree's McpClient and the one at <commit> (its worktree
// prepared as --baseline does) driven in turns, one driver process per 3 s batch at 32 in flight against the
// near-free server of the client section. Each pair's client CPU µs per call side by side; on a host whose speed
// shifts over minutes, the pairs still compare like with like, and the medians summarize.
const { prepareBaseline } = require('./lib/baseline');
const { buildServers } = require('./lib/build');
const { drive } = require('./lib/drivers');
const { startServer, stopServer } = require('./lib/procs');

const [ref, transport = 'stdio', pairsArg = '8'] = process.argv.slice(2);
if (!ref) throw new Error('usage: node bench/ab-client.js <commit> [stdio|http] [pairs]');
const pairs = Number(pairsArg);

(async () => {
  const baseline = prepareBaseline(ref, console.error);
  buildServers();
  const http = transport === 'http' ? await startServer('raw-http.js') : undefined;
  const target = http
    ? { type: 'http', url: `http://127.0.0.1:${http.port}/mcp` }
    : { type: 'stdio', server: 'raw-stdio.js' };
  const spec = { warmup: 1, duration: 3, runs: 1, inflight: [32], target, baselineBuild: baseline.build };
  const seen = { conduit: { us: [], cps: [] }, baseline: { us: [], cps: [] } };
  try {
    for (let pair = 0; pair < pairs; pair++) {
      // Alternate which goes first, so neither always runs on the warmer (or cooler) half of the pair.
      const order = pair % 2 ? ['baseline', 'conduit'] : ['conduit', 'baseline'];
      for (const client of order) {
        const [row] = await drive({ ...spec, client });
        const [run] = row.runs;
        if (run.errors) throw new Error(`${client}: ${run.errors} errors (${run.firstError})`);
        seen[client].us.push(run.cpuUsPerCall);
        seen[client].cps.push(run.cps);
      }
    }
  } finally {
    if (http) await stopServer(http.child);
  }
  const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  for (const name of ['conduit', 'baseline']) {
    console.log(transport, name, 'µs/call', seen[name].us.map((x) => x.toFixed(1)).join(' '));
    console.log(transport, name, 'calls/s', seen[name].cps.join(' '));
  }
  const ratios = seen.conduit.us.map((us, n) => seen.baseline.us[n] / us);
  console.log(
    transport,
    `median µs/call head ${med(seen.conduit.us).toFixed(1)} base ${med(seen.baseline.us).toFixed(1)};`,
    `median of pair ratios base/head ${med(ratios).toFixed(3)};`,
    `median calls/s head ${med(seen.conduit.cps)} base ${med(seen.baseline.cps)}`,
  );
  process.exit(0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});

'use strict';
// Section "stdio round trips": tools/call `echo` calls/s over stdio, sequential and 32 in flight, for each pairing of
// client (raw / this project / SDK 2.x) and server (raw echo / this project / SDK 2.x). Each pairing runs in a
// driver process of its own on CPU 1; the client spawns its server (pinned to CPU 0).
const { buildServers } = require('../lib/build');
const { driveInterleaved } = require('../lib/drivers');
const { timings, meanCps, table, target, targetLine } = require('../lib/section-table');

const INFLIGHT = [1, 32];
const SERVERS = { raw: 'raw-stdio.js', conduit: 'conduit-stdio.ts', sdk: 'sdk-stdio.js' };
const PAIRS = [
  { id: 'raw-raw', client: 'raw', server: 'raw', label: 'raw client → raw echo (limit)' },
  { id: 'raw-conduit', client: 'raw', server: 'conduit', label: 'raw client → conduit server' },
  { id: 'conduit-raw', client: 'conduit', server: 'raw', label: 'conduit client → raw echo' },
  { id: 'conduit-conduit', client: 'conduit', server: 'conduit', label: 'conduit client → conduit server' },
  { id: 'sdk-sdk', client: 'sdk', server: 'sdk', label: 'SDK 2.x client → SDK 2.x server' },
  { id: 'sdk-raw', client: 'sdk', server: 'raw', label: 'SDK 2.x client → raw echo' },
];
const TARGET = 'stdio with 32 in flight: conduit server ≥ 0.70 × raw stdio echo (both driven by the raw client)';

module.exports = {
  id: 'stdio',
  title: 'stdio round trips',
  async run({ quick, log = () => {} }) {
    const { warmup, duration } = timings(quick);
    buildServers();
    const specs = PAIRS.map((pair) => ({
      id: pair.id,
      client: pair.client,
      target: { type: 'stdio', server: SERVERS[pair.server] },
      warmup,
      duration,
      inflight: INFLIGHT,
    }));
    const interleaved = await driveInterleaved(specs, { log, label: (spec) => `stdio ${spec.id}` });
    const results = Object.fromEntries(PAIRS.map((pair, n) => [pair.id, interleaved[n]]));
    const runsOf = (id, inflight) => (results[id].rows || []).find((r) => r.inflight === inflight)?.runs;
    const rows = [];
    for (const inflight of INFLIGHT) {
      const limit = meanCps(runsOf('raw-raw', inflight));
      for (const pair of PAIRS) {
        const runs = runsOf(pair.id, inflight);
        const m = meanCps(runs);
        rows.push({
          id: pair.id,
          label: pair.label,
          inflight,
          runs,
          meanCps: m,
          ratio: m != null && limit ? m / limit : null,
          note: results[pair.id].error?.split('\n')[0].slice(0, 120),
        });
      }
    }
    const at32 = (id) => rows.find((r) => r.id === id && r.inflight === 32).ratio;
    const targets = [target(TARGET, at32('raw-conduit'), 0.7)];
    const markdown = [
      `## ${this.title}`,
      '',
      `tools/call \`echo\` over stdio (newline-delimited JSON-RPC), closed loop: 1 or 32 calls in flight, ${duration} s per run after a ${warmup} s warm-up, ` +
        'two runs per row, interleaved (run 1 of every pairing, then run 2). Every client runs in its own process (CPU 1 when pinned) and spawns its server (CPU 0). Clients: raw = `lib/raw-stdio-client.js`, ' +
        'conduit = `McpClient` (era legacy), SDK = `@modelcontextprotocol/client` 2.x (its default legacy era). Servers: raw echo = `servers/raw-stdio.js`, ' +
        'conduit = `McpStdio.run` with guard + interceptor, SDK = `McpServer` + `StdioServerTransport`. `× limit` = mean calls/s over raw client → raw echo at the same in-flight count.',
      '',
      table(rows, '× limit'),
      '',
      ...targets.map(targetLine),
      '',
    ].join('\n');
    return {
      markdown,
      json: {
        warmupS: warmup,
        durationS: duration,
        inflight: INFLIGHT,
        rows,
        errors: Object.fromEntries(
          Object.entries(results)
            .filter(([, v]) => v.error)
            .map(([k, v]) => [k, v.error]),
        ),
      },
      targets,
    };
  },
};

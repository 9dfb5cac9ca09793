'use strict';
// Section "client throughput": this project's McpClient against the official SDK 2.x Client, both in the legacy era
// (2025-11-25), calling the same near-free server, so the figures are the clients' own cost: over stdio against
// servers/raw-stdio.js (spawned by each client) and over Streamable HTTP against servers/raw-http.js.
const { buildServers } = require('../lib/build');
const { driveInterleaved } = require('../lib/drivers');
const { startServer, stopServer } = require('../lib/procs');
const { timings, meanCps, fmt, table, target, targetLine } = require('../lib/section-table');

/** Mean client CPU µs per call of the runs that report it. */
const meanCpu = (runs) => {
  const known = (runs || []).map((r) => r.cpuUsPerCall).filter((v) => v != null);
  return known.length ? known.reduce((s, v) => s + v, 0) / known.length : null;
};

const INFLIGHT = [1, 32];
// raw: the reference, what neither MCP client can beat on that transport (raw stdio client, node:http keep-alive).
const CLIENTS = [
  { id: 'raw', label: 'raw client (reference)' },
  { id: 'conduit', label: 'conduit McpClient' },
  { id: 'sdk', label: 'SDK 2.x Client' },
];
const TARGET = "this project's client ≥ 2 × the SDK client's calls/s (32 in flight, over stdio and over HTTP alike)";

const BASELINE_TARGET = (sha) =>
  `this project's client within 5 % of its baseline ${sha} (calls/s, 32 in flight, over stdio and over HTTP alike)`;

/** Runs every client against `target`; returns { conduit: rows|{error}, sdk: … }. */
async function allClients(clients, target, spec, log) {
  const specs = clients.map((c) => ({ ...spec, client: c.id, target }));
  const results = await driveInterleaved(specs, { log, label: (s) => `client ${s.client} over ${target.type}` });
  return Object.fromEntries(clients.map((c, n) => [c.id, results[n]]));
}

module.exports = {
  id: 'client',
  title: 'client throughput',
  async run({ quick, log = () => {}, baseline }) {
    const { warmup, duration } = timings(quick);
    const spec = { warmup, duration, inflight: INFLIGHT, baselineBuild: baseline?.build };
    // With --baseline, the client of that commit runs right after this one, in the same interleaving.
    const clients = baseline
      ? [
          ...CLIENTS.slice(0, 2),
          { id: 'baseline', label: `conduit McpClient at ${baseline.sha} (baseline)` },
          CLIENTS[2],
        ]
      : CLIENTS;
    buildServers();
    const results = { stdio: await allClients(clients, { type: 'stdio', server: 'raw-stdio.js' }, spec, log) };
    let http;
    try {
      http = await startServer('raw-http.js');
      results.http = await allClients(clients, { type: 'http', url: `http://127.0.0.1:${http.port}/mcp` }, spec, log);
    } catch (error) {
      log(`client over http: failed: ${error.message}`);
      results.http = Object.fromEntries(clients.map((c) => [c.id, { error: error.message }]));
    } finally {
      if (http) await stopServer(http.child);
    }

    const runsOf = (transport, client, inflight) =>
      (results[transport][client]?.rows || []).find((r) => r.inflight === inflight)?.runs;
    const rows = [];
    const ratioAt32 = {};
    const baselineAt32 = {};
    const cpuAt32 = {};
    for (const transport of ['stdio', 'http']) {
      const server = transport === 'stdio' ? 'raw stdio echo' : 'raw HTTP server';
      for (const inflight of INFLIGHT) {
        const sdk = meanCps(runsOf(transport, 'sdk', inflight));
        const before = meanCps(runsOf(transport, 'baseline', inflight));
        for (const c of clients) {
          const runs = runsOf(transport, c.id, inflight);
          const m = meanCps(runs);
          const ratio = m != null && sdk ? m / sdk : null;
          if (inflight === 32) cpuAt32[`${transport}:${c.id}`] = meanCpu(runs);
          if (c.id === 'conduit' && inflight === 32) {
            ratioAt32[transport] = ratio;
            if (baseline) baselineAt32[transport] = m != null && before ? m / before : null;
          }
          const note = results[transport][c.id].error?.split('\n')[0].slice(0, 120);
          rows.push({
            transport,
            client: c.id,
            label: `${c.label} → ${server} (${transport})`,
            inflight,
            runs,
            meanCps: m,
            ratio,
            note,
          });
        }
      }
    }
    const both = ['stdio', 'http'].map((t) => ratioAt32[t]);
    // The lower of the two ratios: the client must lead on either transport, not on average.
    const lower = both.every((r) => r != null) ? Math.min(both[0], both[1]) : null;
    const targets = [target(TARGET, lower, 2)];
    const sinceBaseline = ['stdio', 'http'].map((t) => baselineAt32[t]);
    if (baseline) {
      const worse = sinceBaseline.every((r) => r != null) ? Math.min(...sinceBaseline) : null;
      targets.push(target(BASELINE_TARGET(baseline.sha), worse, 0.95));
    }
    const markdown = [
      `## ${this.title}`,
      '',
      `tools/call \`echo\` from each client, closed loop: 1 or 32 calls in flight, ${duration} s per run after a ${warmup} s warm-up, two runs per row, interleaved (run 1 of every client, then run 2); ` +
        'each client in its own process (CPU 1 when pinned), the server on CPU 0. Both clients in the legacy era (2025-11-25): conduit `McpClient` ' +
        "(`McpClientModule.forRoot`, era 'legacy') and `@modelcontextprotocol/client` 2.x `Client` (its default). Servers: `servers/raw-stdio.js` " +
        "(spawned by the client) and `servers/raw-http.js` (Streamable HTTP, JSON answers, no session; the SDK client's GET stream gets 405). " +
        'Reference rows: `lib/raw-stdio-client.js` and `lib/raw-http-client.js` (one `node:http` keep-alive POST per call; the SDK client uses the global `fetch`, ' +
        "conduit's its own `node:http` fetch). " +
        "`× SDK client` = mean calls/s over the SDK client's on the same transport and in-flight count.",
      '',
      table(rows, '× SDK client'),
      '',
      `32 in flight, conduit over SDK: stdio ${both[0] == null ? '—' : both[0].toFixed(2)}, HTTP ${both[1] == null ? '—' : both[1].toFixed(2)}. ` +
        'The target takes the lower of the two.' +
        (baseline
          ? ` Over its baseline ${baseline.sha}: stdio ${sinceBaseline[0]?.toFixed(3) ?? '—'}, HTTP ${sinceBaseline[1]?.toFixed(3) ?? '—'}.`
          : ''),
      '',
      'Client CPU µs per call at 32 in flight (the driver process: user + system over completed calls, mean of the runs): ' +
        ['stdio', 'http']
          .map((t) => `${t} ${clients.map((c) => `${c.id} ${fmt(cpuAt32[`${t}:${c.id}`], 1)}`).join(', ')}`)
          .join('; ') +
        '.',
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
        ratioAt32,
        baselineAt32,
        cpuAt32,
        results,
      },
      targets,
    };
  },
};

'use strict';
// Tail latency under many connections: tools/call `echo` on this project's server (conduit.ts, modern, and legacy on
// one session) beside the raw node:http echo, at 16, 64, 256 and 1 024 connections (quick: 64 and 256, 3 s runs).
// Side by side like run.js's measureSideBySide: every server up, then per connection count run 1 of every server in
// order and run 2 in reverse order, each after a warm-up of its own at that count. autocannon's timeout is 30 s, so a
// slow answer counts as latency rather than as an error. Latencies are fractional ms from autocannon's per-response
// times, each connection's first answer left out (it carries the TCP connect: see session-pool-load.js
// recordLatencies); an answer that is not the echo (a JSON-RPC error in a 200) is counted apart and not in them.
// The load generator is one process on one core: the raw echo's row, and the generator's own CPU, show its limit.
const { startServer, stopServer, cpuSeconds, rssMb } = require('../lib/procs');
const { requestShape, openLegacySession, probe } = require('../lib/protocol');
const { runLoad } = require('../lib/session-pool-load');
const { mean, round } = require('../lib/stats');
const { table, targetLines } = require('../lib/markdown');

const TIMEOUT_S = 30;
// The server's connection caps (http.connections: 1 024 in all, 128 per client address by default) would refuse most
// of 256 or 1 024 connections from one address with 503: the bench server raises them with this (see README).
const CONNECTION_ENV = { BENCH_MAX_CONNECTIONS: '4096' };
const SERVERS = [
  { id: 'raw', label: 'raw node:http (limit)', file: 'raw-http.js', era: 'modern' },
  { id: 'conduit-modern', label: 'conduit modern', file: 'conduit.ts', env: CONNECTION_ENV, era: 'modern' },
  {
    id: 'conduit-legacy',
    label: 'conduit legacy (1 session)',
    file: 'conduit.ts',
    env: CONNECTION_ENV,
    era: 'legacy',
  },
];
const TEXT = '"text":"hello bench"';
const answered = (body) => body.includes(TEXT) && !body.includes('"isError":true');
const REFUSED_NOTE =
  " **Non-2xx answers on this project's rows: the server refused connections past its caps (`http.connections`, " +
  '1 024 in all and 128 per address by default; raised with BENCH_MAX_CONNECTIONS, see bench/README.md).**';
// A raw p99 under 1 ms is taken as 1 ms in the ratios: below that, the ratio would magnify sub-millisecond jitter.
const P99_FLOOR_MS = 1;

/**
 * Starts a server, opens its legacy session if any, checks one call and warms it up for `warmup` s at 16 connections
 * (a first run straight after start-up measures the JIT compiler as much as the server); resolves { spec, started,
 * url, shape }.
 */
async function prepare(spec, warmup) {
  const started = await startServer(spec.file, spec.env);
  try {
    const url = `http://127.0.0.1:${started.port}/mcp`;
    const sessionId = spec.era === 'legacy' ? await openLegacySession(url) : undefined;
    if (spec.era === 'legacy' && !sessionId) throw new Error('initialize returned no Mcp-Session-Id');
    const shape = requestShape(spec.era, 'tools/call', sessionId);
    await probe(url, shape, 'tools/call');
    await runLoad(url, shape, 16, warmup, { timeoutS: TIMEOUT_S });
    return { spec, started, url, shape };
  } catch (error) {
    await stopServer(started.child);
    throw error;
  }
}

/** One measured run after a warm-up of its own: the server's CPU µs and the generator's CPU % besides the load. */
async function measuredRun(server, connections, warmup, duration) {
  const options = { timeoutS: TIMEOUT_S, check: answered };
  await runLoad(server.url, server.shape, connections, warmup, options);
  const before = cpuSeconds(server.started.pid);
  const own = process.cpuUsage();
  const t0 = performance.now();
  const r = await runLoad(server.url, server.shape, connections, duration, { ...options, fine: true });
  const ownUs = process.cpuUsage(own);
  r.generatorCpuPct = Math.round(((ownUs.user + ownUs.system) / 1000 / (performance.now() - t0)) * 100);
  const after = cpuSeconds(server.started.pid);
  r.cpuUs = before === null || after === null || !r.total ? null : ((after - before) * 1e6) / r.total;
  return r;
}

const meanOf = (runs, pick) => {
  const xs = runs.map(pick);
  return xs.length && xs.every((x) => x != null) ? mean(xs) : null;
};
const fmt = (x, d = 2) => (x == null ? null : x.toFixed(d));
const clean = (runs) => runs.every((r) => !r.errors && !r.non2xx && !r.rpcErrors);

module.exports = {
  id: 'connections',
  title: 'Tail latency under many connections',
  async run({ quick, log = () => {} }) {
    const counts = quick ? [64, 256] : [16, 64, 256, 1_024];
    const [startWarmup, warmup, duration] = quick ? [2, 1, 3] : [3, 2, 6];
    const ready = [];
    const skipped = [];
    const rows = [];
    try {
      for (const spec of SERVERS) {
        try {
          ready.push(await prepare(spec, startWarmup));
        } catch (error) {
          log(`connections ${spec.id}: skipped: ${error.message}`);
          skipped.push({ id: spec.id, reason: error.message });
        }
      }
      for (const c of counts) {
        const runs = new Map(ready.map((server) => [server, []]));
        for (let i = 0; i < 2; i++) {
          for (const server of i === 0 ? ready : [...ready].reverse()) {
            const r = await measuredRun(server, c, warmup, duration);
            log(
              `connections ${server.spec.id} c=${c} run ${i + 1}: ${r.rps} req/s p50 ${r.latency.p50} p99 ` +
                `${r.latency.p99} ms (autocannon ${r.p99}) err ${r.errors} non2xx ${r.non2xx} rpc ${r.rpcErrors} ` +
                `cpu ${r.cpuUs?.toFixed(1) ?? '—'} µs/req, generator ${r.generatorCpuPct} % CPU`,
            );
            runs.get(server).push(r);
          }
        }
        for (const server of ready) {
          const { id, label } = server.spec;
          rows.push({ id, label, connections: c, runs: runs.get(server), rssMb: rssMb(server.started.pid) });
        }
      }
    } finally {
      await Promise.all(ready.map((server) => stopServer(server.started.child)));
    }

    // Ratios against the raw echo at the same connection count.
    for (const row of rows) {
      const raw = rows.find((r) => r.id === 'raw' && r.connections === row.connections);
      row.rps = meanOf(row.runs, (r) => r.rps);
      row.p99 = meanOf(row.runs, (r) => r.latency.p99);
      row.ratioRps = raw ? row.rps / raw.rps : null;
      row.ratioP99 = raw && row.p99 != null && raw.p99 != null ? row.p99 / Math.max(raw.p99, P99_FLOOR_MS) : null;
    }
    const targets = [];
    for (const [c, threshold] of [
      [256, 2],
      [64, 1.5],
    ]) {
      for (const [id, era] of [
        ['conduit-modern', 'modern'],
        ['conduit-legacy', 'legacy'],
      ]) {
        const row = rows.find((r) => r.id === id && r.connections === c);
        const raw = rows.find((r) => r.id === 'raw' && r.connections === c);
        const value = row && raw && row.ratioP99 != null ? round(row.ratioP99, 3) : null;
        targets.push({
          target: `tools/call ${era}: p99 at ${c} connections ≤ ${threshold} × the raw echo's`,
          value,
          threshold,
          // Failed answers (refused connections, JSON-RPC errors) are not echo calls: not met, whatever the ratio.
          met: value != null && value <= threshold && clean(row.runs) && clean(raw.runs),
        });
      }
    }

    const json = {
      counts,
      startWarmupS: startWarmup,
      warmupS: warmup,
      durationS: duration,
      timeoutS: TIMEOUT_S,
      rows,
      skipped,
    };
    const lines = rows.map((row) => [
      row.label,
      row.connections,
      row.runs.map((r) => r.rps).join(' / '),
      fmt(meanOf(row.runs, (r) => r.latency.p50)),
      fmt(meanOf(row.runs, (r) => r.latency.p97_5)),
      row.runs.map((r) => fmt(r.latency.p99)).join(' / '),
      row.runs.map((r) => r.p99).join(' / '),
      row.runs.map((r) => `${r.errors}/${r.non2xx}/${r.rpcErrors}`).join(' + '),
      fmt(
        meanOf(row.runs, (r) => r.cpuUs),
        1,
      ),
      row.runs.map((r) => r.generatorCpuPct).join(' / '),
      row.rssMb,
      fmt(row.ratioRps),
      row.id === 'raw' ? '1.00' : fmt(row.ratioP99),
    ]);
    for (const s of skipped) lines.push([s.id, '—', `failed: ${s.reason.split('\n')[0].slice(0, 100)}`]);
    const refused = rows.some((r) => r.id !== 'raw' && r.runs.some((x) => x.non2xx));
    const markdown = [
      '## Tail latency under many connections',
      '',
      `autocannon \`tools/call\` \`echo\`, keep-alive, one request in flight per connection (timeout ${TIMEOUT_S} ` +
        `s). Every server up at once and warmed up (${startWarmup} s at 16 connections); per connection count, run 1 ` +
        `of every server in order then run 2 in reverse order, each ${duration} s after a ${warmup} s warm-up of its ` +
        `own at that count. Latencies in fractional ms from autocannon's per-response times, each connection's first ` +
        `answer left out (it includes the TCP connect; 1 024 connections at once overflow the listen backlog); p50 ` +
        `and p97.5 are the means of the two runs; autocannon's own p99 (whole ms, every 2xx answer) is shown beside. ` +
        `Errors = socket errors+timeouts / non-2xx / 2xx answers that were not the echo (left out of the latencies). ` +
        `CPU µs = the server's per request; generator % = the load generator's own CPU over the run (one process on ` +
        `one core: near 100 %, the raw echo's figures are the generator's limit as much as the server's). × raw: ` +
        `mean req/s over the raw echo's; p99 × raw: mean p99 over the raw echo's mean p99, taken as at least ` +
        `${P99_FLOOR_MS} ms.${quick ? ' Quick mode: 64 and 256 connections only.' : ''}` +
        (refused ? REFUSED_NOTE : ''),
      '',
      table(
        [
          'server',
          'connections',
          'req/s (run 1 / run 2)',
          'p50 ms',
          'p97.5 ms',
          'p99 ms (run 1 / run 2)',
          'autocannon p99, all answers',
          'errors (sock/non-2xx/rpc)',
          'CPU µs/req',
          'generator CPU %',
          'RSS MB',
          '× raw req/s',
          'p99 × raw',
        ],
        lines,
      ),
      '',
      ...targetLines(targets),
      '',
    ].join('\n');
    return { markdown, json, targets };
  },
};

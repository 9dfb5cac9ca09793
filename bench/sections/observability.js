'use strict';
// Observability (issue 18): modern tools/call with @conduit-mcp/metrics subscribed — Prometheus metrics
// (McpMetricsModule), OpenTelemetry spans (McpTracingModule, an SDK tracer provider whose batch processor drops the
// spans), both — side by side with the same server without them and with the raw node:http echo (the limit).
const { startServer, stopServer, cpuSeconds } = require('../lib/procs');
const { requestShape, probe } = require('../lib/protocol');
const { load } = require('../lib/load');
const { mean } = require('../lib/stats');
const { table } = require('../lib/markdown');
const { timings, target, targetLine, fmt } = require('../lib/section-table');

const CONCURRENCY = 16;
const CALL = requestShape('modern', 'tools/call');
const TARGET = `observability: modern tools/call with metrics and tracing ≥ 0.40 × the raw echo (c=${CONCURRENCY})`;

const SERVERS = [
  { id: 'raw', label: 'raw node:http echo (limit)', file: 'raw-http.js' },
  { id: 'plain', label: 'this project, nothing subscribed', file: 'conduit.ts' },
  { id: 'metrics', label: '+ Prometheus metrics', file: 'conduit.ts', env: { BENCH_OBSERVE: 'metrics' } },
  {
    id: 'context',
    label: '+ OpenTelemetry context only (an app already traced)',
    file: 'conduit.ts',
    env: { BENCH_OBSERVE: 'context' },
  },
  { id: 'tracing', label: '+ context + MCP spans', file: 'conduit.ts', env: { BENCH_OBSERVE: 'context,tracing' } },
  {
    id: 'both',
    label: '+ context + MCP spans + metrics',
    file: 'conduit.ts',
    env: { BENCH_OBSERVE: 'context,tracing,metrics' },
  },
];

/** One measured run after a warm-up of its own, with the server's CPU µs per answered request. */
async function measuredRun(server, { warmup, duration }) {
  await load(server.url, CALL, CONCURRENCY, warmup);
  const before = cpuSeconds(server.started.pid);
  const r = await load(server.url, CALL, CONCURRENCY, duration);
  const after = cpuSeconds(server.started.pid);
  r.cpuUs = before === null || after === null || !r.total ? null : ((after - before) * 1e6) / r.total;
  return r;
}

// The metrics servers must have counted the calls: a figure of a server that recorded nothing would flatter it.
async function countedCalls(url) {
  const response = await fetch(url.replace(/\/mcp$/, '/metrics'));
  const text = await response.text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('mcp_server_operation_duration_seconds_count{') && l.includes('tools/call'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

module.exports = {
  id: 'observability',
  title: 'Observability cost',
  async run({ quick, log = () => {} }) {
    const options = timings(quick);
    const started = [];
    const runs = new Map(SERVERS.map((s) => [s.id, []]));
    const json = { concurrency: CONCURRENCY, ...options, counted: {} };
    try {
      for (const spec of SERVERS) {
        const server = await startServer(spec.file, spec.env);
        const entry = { ...spec, started: server, url: `http://127.0.0.1:${server.port}/mcp` };
        started.push(entry);
        await probe(entry.url, CALL, 'tools/call');
      }
      // In order, then in reverse: drift of a shared host favours none.
      for (const order of [started, [...started].reverse()]) {
        for (const server of order) {
          const r = await measuredRun(server, options);
          log(
            `observability ${server.id}: ${r.rps}/s p50 ${r.p50} p99 ${r.p99} err ${r.errors} non2xx ${r.non2xx} cpu ${r.cpuUs?.toFixed(1) ?? '—'} µs`,
          );
          runs.get(server.id).push(r);
        }
      }
      for (const server of started.filter((s) => s.env?.BENCH_OBSERVE?.includes('metrics'))) {
        json.counted[server.id] = await countedCalls(server.url);
        if (!(json.counted[server.id] > 0)) throw new Error(`${server.id}: /metrics counted no tools/call`);
      }
    } finally {
      await Promise.all(started.map((s) => stopServer(s.started.child)));
    }
    const clean = (rs) => rs.every((r) => r.errors === 0 && r.non2xx === 0);
    const rpsOf = (id) => (clean(runs.get(id)) ? mean(runs.get(id).map((r) => r.rps)) : null);
    const cpuOf = (id) =>
      mean(
        runs
          .get(id)
          .map((r) => r.cpuUs)
          .filter((x) => x != null),
      );
    const raw = rpsOf('raw');
    const plain = rpsOf('plain');
    json.results = {};
    const rows = SERVERS.map((spec) => {
      const rs = runs.get(spec.id);
      const rps = rpsOf(spec.id);
      const result = {
        rps,
        ratioRaw: rps && raw ? rps / raw : null,
        ratioPlain: rps && plain ? rps / plain : null,
        cpuUs: cpuOf(spec.id),
        cpuPlain: cpuOf('plain'),
      };
      json.results[spec.id] = { ...result, runs: rs };
      const extraCpu = spec.id === 'raw' || spec.id === 'plain' ? '—' : fmt(result.cpuUs - result.cpuPlain, 1);
      return [
        spec.label,
        rs.map((r) => r.rps).join(' / '),
        rs.map((r) => r.p99).join(' / '),
        `${rs.map((r) => r.errors).join('+')} / ${rs.map((r) => r.non2xx).join('+')}`,
        fmt(result.cpuUs, 1),
        extraCpu,
        fmt(result.ratioRaw),
        spec.id === 'raw' ? '—' : fmt(result.ratioPlain),
      ];
    });
    const targets = [target(TARGET, json.results.both.ratioRaw, 0.4)];
    const markdown = [
      '## Observability cost',
      '',
      `Modern (2026-07-28) \`tools/call\` \`echo\` at ${CONCURRENCY} in flight, each server after a warm-up of its ` +
        `own (${options.warmup} s, then ${options.duration} s measured), two runs each in order and reverse order. ` +
        '"+ Prometheus metrics": `McpMetricsModule.forRoot({ route: true })` (the run checks `/metrics` counted the ' +
        'calls). "+ OpenTelemetry context only": the `AsyncLocalStorageContextManager` and every HTTP request run in ' +
        "a context of its own, as OpenTelemetry's HTTP instrumentation does: what an app already traced pays before " +
        'this library does anything (on Node 20 an active AsyncLocalStorage hooks every promise). "+ MCP spans": ' +
        '`McpTracingModule` with an SDK `BasicTracerProvider` and a `BatchSpanProcessor` whose exporter drops the ' +
        'spans (a request span and a handler span per call). Extra CPU: server CPU µs per call over the plain server.',
      '',
      table(
        [
          'server',
          'calls/s (runs)',
          'p99 ms',
          'errors / non-2xx',
          'CPU µs/call',
          'extra CPU µs/call',
          '× raw',
          '× plain',
        ],
        rows,
        ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
      '',
      ...targets.map(targetLine),
      '',
    ].join('\n');
    return { markdown, json, targets };
  },
};

'use strict';
// Legacy (2025-11-25) tools/call `echo` throughput while the server holds N live sessions (N = 1 000, 10 000, 50 000).
// One fresh conduit.ts per N, all started with the same BENCH_MAX_SESSIONS (so the only difference between them is how
// many sessions they hold); each opens its N sessions (initialize + notifications/initialized, 32 in flight over
// keep-alive), then the load (autocannon, 16 connections) goes round robin over 1 000 of them taken evenly over the
// whole set, the same pool size for every N. Side by side like run.js: run 1 of every server in order, run 2 in
// reverse order, each after a warm-up of its own; the server's CPU per request from /proc; RSS after opening and at
// the end. A sample of 20 sessions over the whole set (first and last included) is called at the end: still alive?
// Quick mode keeps the target's pair, 1 000 and 50 000, with 2 s runs: opening 50 000 sessions was measured inside the
// ~25 s the quick budget leaves for it on a quiet 2-core machine, somewhat over it on a busy one (the table shows each
// run's opening time), which still keeps the section near a minute.
const http = require('node:http');
const { startServer, stopServer, cpuSeconds, rssMb } = require('../lib/procs');
const { openSessions, callEcho } = require('../lib/legacy-sessions');
const { spreadSample, loadOverSessions } = require('../lib/session-pool-load');
const { mean, round } = require('../lib/stats');
const { table, targetLines } = require('../lib/markdown');

const POOL = 1_000;
const CONNECTIONS = 16;
const OPEN_IN_FLIGHT = 32;
const SAMPLE = 20;
const TEXT = '"text":"hello bench"';
const answered = (body) => body.includes(TEXT) && !body.includes('"isError":true');

/** Starts conduit.ts with room for `maxSessions`, opens `count` sessions, warms up; resolves the server. */
async function prepare(count, maxSessions, warmup, log) {
  const started = await startServer('conduit.ts', { BENCH_MAX_SESSIONS: String(maxSessions) });
  const url = `http://127.0.0.1:${started.port}/mcp`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: OPEN_IN_FLIGHT });
  try {
    const opened = await openSessions(url, agent, count, OPEN_IN_FLIGHT);
    log(
      `session-scale ${count}: ${opened.ids.length} opened, ${opened.refused} refused in ${Math.round(opened.ms)} ms`,
    );
    if (opened.ids.length !== count)
      throw new Error(`${opened.refused} of ${count} sessions refused (first: ${opened.firstError})`);
    const pool = spreadSample(opened.ids, POOL);
    for (const id of spreadSample(pool, SAMPLE))
      if (!(await callEcho(url, agent, id))) throw new Error(`session ${id}: echo answered wrongly after opening`);
    const rssOpened = rssMb(started.pid);
    await loadOverSessions(url, pool, CONNECTIONS, warmup);
    return { count, started, url, ids: opened.ids, pool, openMs: opened.ms, rssOpened, runs: [] };
  } catch (error) {
    await stopServer(started.child);
    throw error;
  } finally {
    agent.destroy();
  }
}

/** One measured run after a warm-up of its own, with the server's CPU µs per request. */
async function measuredRun(server, warmup, duration) {
  await loadOverSessions(server.url, server.pool, CONNECTIONS, warmup);
  const before = cpuSeconds(server.started.pid);
  const r = await loadOverSessions(server.url, server.pool, CONNECTIONS, duration, { fine: true, check: answered });
  const after = cpuSeconds(server.started.pid);
  r.cpuUs = before === null || after === null || !r.total ? null : ((after - before) * 1e6) / r.total;
  return r;
}

/** How many of `SAMPLE` sessions spread over all the opened ones still answer. */
async function aliveSample(server) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const sample = spreadSample(server.ids, SAMPLE);
    let alive = 0;
    for (const id of sample) if (await callEcho(server.url, agent, id)) alive++;
    return `${alive}/${sample.length}`;
  } finally {
    agent.destroy();
  }
}

const meanOf = (runs, key) => (runs.every((r) => r[key] != null) ? mean(runs.map((r) => r[key])) : null);
const fmt = (x) => (x == null ? null : x.toFixed(2));
const clean = (runs) => runs.every((r) => !r.errors && !r.non2xx && !r.rpcErrors);

module.exports = {
  id: 'session-scale',
  title: 'tools/call with many live legacy sessions',
  async run({ quick, log = () => {} }) {
    const counts = quick ? [1_000, 50_000] : [1_000, 10_000, 50_000];
    const [warmup, duration] = quick ? [1, 2] : [2, 10];
    // The same bound for every server: room for the largest N, so that the servers differ only in what they hold.
    const maxSessions = Math.max(...counts) + 1_000;
    const servers = [];
    const failed = new Map();
    try {
      for (const count of counts) {
        try {
          servers.push(await prepare(count, maxSessions, warmup, log));
        } catch (error) {
          log(`session-scale ${count}: ${error.message}`);
          failed.set(count, error.message);
        }
      }
      for (let i = 0; i < 2; i++) {
        for (const server of i === 0 ? servers : [...servers].reverse()) {
          const r = await measuredRun(server, warmup, duration);
          log(
            `session-scale ${server.count} run ${i + 1}: ${r.rps} req/s p50 ${r.latency.p50} p99 ${r.latency.p99} ms ` +
              `err ${r.errors} non2xx ${r.non2xx} rpc ${r.rpcErrors} cpu ${r.cpuUs?.toFixed(1) ?? '—'} µs/req`,
          );
          server.runs.push(r);
        }
      }
      for (const server of servers) {
        server.rssEnd = rssMb(server.started.pid);
        server.alive = await aliveSample(server);
      }
    } finally {
      await Promise.all(servers.map((s) => stopServer(s.started.child)));
    }

    const base = servers.find((s) => s.count === 1_000);
    const rows = [];
    const json = { counts, pool: POOL, connections: CONNECTIONS, warmupS: warmup, durationS: duration, maxSessions };
    json.servers = {};
    for (const count of counts) {
      const s = servers.find((x) => x.count === count);
      if (!s) {
        json.servers[count] = { error: failed.get(count) };
        const reason = `failed: ${String(failed.get(count)).split('\n')[0].slice(0, 100)}`;
        rows.push([count.toLocaleString('en'), '—', reason, ...Array(8).fill('—')]);
        continue;
      }
      const rps = meanOf(s.runs, 'rps');
      const cpu = meanOf(s.runs, 'cpuUs');
      const baseCpu = base && meanOf(base.runs, 'cpuUs');
      s.ratioRps = base ? rps / meanOf(base.runs, 'rps') : null;
      s.ratioCpu = cpu != null && baseCpu ? cpu / baseCpu : null;
      json.servers[count] = {
        openMs: Math.round(s.openMs),
        rssOpened: s.rssOpened,
        rssEnd: s.rssEnd,
        alive: s.alive,
        runs: s.runs,
        ratioRps: round(s.ratioRps, 3),
        ratioCpu: round(s.ratioCpu, 3),
      };
      rows.push([
        count.toLocaleString('en'),
        round(s.openMs / 1000),
        s.runs.map((r) => r.rps).join(' / '),
        s.runs.map((r) => r.latency.p50).join(' / '),
        s.runs.map((r) => r.latency.p99).join(' / '),
        s.runs.map((r) => `${r.errors}/${r.non2xx}/${r.rpcErrors}`).join(' + '),
        round(cpu),
        `${s.rssOpened} → ${s.rssEnd}`,
        s.alive,
        fmt(s.ratioRps),
        fmt(s.ratioCpu),
      ]);
    }
    const top = servers.find((s) => s.count === 50_000);
    const value = top && base ? round(top.ratioRps, 3) : null;
    const targets = [
      {
        target: 'tools/call with 50 000 live legacy sessions ≥ 0.9 × with 1 000 (req/s)',
        value,
        threshold: 0.9,
        // A run with failed answers measured something else than echo calls: not met, whatever the ratio.
        met: value != null && value >= 0.9 && clean(top.runs) && clean(base.runs),
      },
    ];
    const markdown = [
      '## tools/call with many live legacy sessions',
      '',
      `One fresh \`conduit.ts\` per row, all with \`BENCH_MAX_SESSIONS=${maxSessions}\` (\`http.maxSessions\` and ` +
        `\`maxSessionsPerPrincipal\`), each holding the row's live legacy sessions (opened ${OPEN_IN_FLIGHT} in ` +
        `flight over keep-alive: initialize + notifications/initialized). Load: autocannon legacy \`tools/call\` ` +
        `\`echo\` at ${CONNECTIONS} connections, round robin over ${POOL} sessions taken evenly over the whole set ` +
        `(the same pool size in every row). Two ${duration} s runs per row, run 1 of every row in order then run 2 ` +
        `in reverse order, each after a ${warmup} s warm-up of its own. Latencies in fractional ms from autocannon's ` +
        `per-response times (each connection's first answer left out); errors = socket errors+timeouts / non-2xx / ` +
        `answers that were not the echo. CPU = the server's user+system time over the requests answered (mean of the ` +
        `runs). Alive: of ${SAMPLE} sessions spread over all opened, how many still answer after the runs. × 1 000: ` +
        `mean req/s (resp. CPU µs per request) over the 1 000-session ` +
        `row's.${quick ? ' Quick mode: 1 000 and 50 000 only.' : ''}`,
      '',
      table(
        [
          'live sessions',
          'opened in s',
          'req/s (run 1 / run 2)',
          'p50 ms',
          'p99 ms',
          'errors (sock/non-2xx/rpc)',
          'CPU µs/req',
          'RSS MB opened → end',
          'alive',
          'req/s × 1 000',
          'CPU × 1 000',
        ],
        rows,
      ),
      '',
      ...targetLines(targets),
      '',
    ].join('\n');
    return { markdown, json, targets };
  },
};

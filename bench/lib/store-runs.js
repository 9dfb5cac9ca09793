'use strict';
// The throughput half of the scale-out section: servers of conduit.ts (with `tick`, BENCH_TICK=1) prepared with a
// pool of legacy sessions, then measured side by side in A B B A order, each run after a warm-up of its own.
// Scenarios: 'legacy' (tools/call over the pool), 'modern' (tools/call, no session), 'open' (legacy sessions opened:
// initialize + notifications/initialized, the requests that write to the session store).
const http = require('node:http');
const { startServer, stopServer, cpuSeconds } = require('./procs');
const { requestShape, probe } = require('./protocol');
const { load } = require('./load');
const { openSessions } = require('./legacy-sessions');
const { openSessionPool, loadOverSessions } = require('./session-pool-load');

const MODERN_CALL = requestShape('modern', 'tools/call');
const SCENARIOS = ['legacy', 'modern', 'open'];

/**
 * Starts conduit.ts with `env` and `tick`, checks a modern call, opens `pool` legacy sessions (each checked), and
 * warms both eras up for `warmup` seconds at `concurrency` (a first run straight after start-up measures the JIT
 * compiler as much as the server). Resolves { id, label, started, url, sessions }; the caller stops `started.child`.
 */
async function prepareServer({ id, label, env, pool, concurrency, warmup }) {
  const started = await startServer('conduit.ts', { BENCH_TICK: '1', ...env });
  const url = `http://127.0.0.1:${started.port}/mcp`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await probe(url, MODERN_CALL, 'tools/call');
    const sessions = await openSessionPool(url, agent, pool);
    if (warmup) {
      await loadOverSessions(url, sessions, concurrency, warmup);
      await load(url, MODERN_CALL, concurrency, warmup);
    }
    return { id, label, started, url, sessions };
  } catch (error) {
    await stopServer(started.child);
    throw error;
  } finally {
    agent.destroy();
  }
}

/** Opens `count` sessions, `concurrency` in flight; resolves what a load run resolves (rps: sessions per second). */
async function openRun(url, count, concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const r = await openSessions(url, agent, count, concurrency);
    return {
      rps: Math.round((r.ids.length * 1000) / r.ms),
      p50: null,
      p99: null,
      errors: r.refused,
      non2xx: 0,
      total: r.ids.length,
      firstError: r.firstError,
    };
  } finally {
    agent.destroy();
  }
}

/** One measured run of `scenario` after a warm-up of its own, with the server's CPU µs per answered request. */
async function measuredRun(server, scenario, { concurrency, warmup, duration, sessionsPerRun }) {
  const run = (seconds, count) => {
    if (scenario === 'legacy') return loadOverSessions(server.url, server.sessions, concurrency, seconds);
    if (scenario === 'modern') return load(server.url, MODERN_CALL, concurrency, seconds);
    return openRun(server.url, count, concurrency);
  };
  await run(warmup, Math.ceil(sessionsPerRun / 4));
  const before = cpuSeconds(server.started.pid);
  const r = await run(duration, sessionsPerRun);
  const after = cpuSeconds(server.started.pid);
  r.cpuUs = before === null || after === null || !r.total ? null : ((after - before) * 1e6) / r.total;
  return r;
}

/**
 * Runs `scenario` on every server, in order and then in reverse (drift of a shared host then favours none); resolves
 * a Map of server id → runs. `options`: { concurrency, warmup, duration (s), sessionsPerRun ('open') }.
 */
async function sideBySide(servers, scenario, options, log) {
  if (!SCENARIOS.includes(scenario)) throw new Error(`sideBySide: scenario must be one of ${SCENARIOS.join(', ')}`);
  const runs = new Map(servers.map((s) => [s.id, []]));
  for (const order of [servers, [...servers].reverse()]) {
    for (const server of order) {
      const r = await measuredRun(server, scenario, options);
      log(
        `scale-out ${scenario} ${server.id}: ${r.rps}/s p50 ${r.p50 ?? '—'} p99 ${r.p99 ?? '—'} err ${r.errors} non2xx ${r.non2xx} cpu ${r.cpuUs?.toFixed(1) ?? '—'} µs${r.firstError ? ` (first error: ${r.firstError})` : ''}`,
      );
      runs.get(server.id).push(r);
    }
  }
  return runs;
}

module.exports = { prepareServer, sideBySide };

'use strict';
// Scale-out on Redis (issue 17). Two servers of conduit.ts, one on the in-memory stores and one with
// BENCH_STORE=redis, measured side by side by the same client: legacy tools/call over a pool of sessions, modern
// tools/call (no store: unchanged by the module) and legacy session opening (what writes to the session store). Then
// the latency of a resource update from `tick` to a subscriptions/listen stream: on one in-memory instance, on one
// Redis instance, and from a second Redis instance on the same prefix to the first (the cross-instance bus).
const { randomUUID } = require('node:crypto');
const { stopServer } = require('../lib/procs');
const { prepareServer, sideBySide } = require('../lib/store-runs');
const { measureNotifyLatency } = require('../lib/notify-latency');
const { redisUrl, connectRedis, deleteKeys, countKeys } = require('../lib/bench-redis');
const { mean } = require('../lib/stats');
const { table } = require('../lib/markdown');
const { timings, target, targetLine, fmt } = require('../lib/section-table');

const CONCURRENCY = 16;
// As many sessions as connections: each in-flight request can be on a session of its own.
const POOL = 16;
const GAP_MS = 5;
const SOFT_P99_MS = 50;

const LEGACY_TARGET = `scale-out: legacy tools/call with the Redis session store ≥ 0.6 × in-memory (c=${CONCURRENCY})`;
const MODERN_TARGET = `scale-out: modern tools/call with the Redis module loaded ≥ 0.95 × without (c=${CONCURRENCY})`;
const LATENCY_TARGET = `scale-out: cross-instance resource update p99 ≤ ${SOFT_P99_MS} ms (soft target)`;

const SCENARIO_LABELS = {
  legacy: 'legacy tools/call',
  modern: 'modern tools/call',
  open: 'legacy session opened (initialize + initialized)',
};

const meanOf = (runs, key) => {
  const xs = runs.map((r) => r[key]).filter((x) => x != null);
  return xs.length ? mean(xs) : null;
};

/** The table rows of one scenario and its ratios Redis / in-memory (req/s: null when a run had errors). */
function scenarioRows(scenario, servers, runs) {
  const [memory, redis] = servers.map((s) => runs.get(s.id));
  const clean = (rs) => rs.every((r) => r.errors === 0 && r.non2xx === 0);
  const ratio = clean(memory) && clean(redis) ? meanOf(redis, 'rps') / meanOf(memory, 'rps') : null;
  const cpuMemory = meanOf(memory, 'cpuUs');
  const cpuRedis = meanOf(redis, 'cpuUs');
  const cpuRatio = cpuMemory && cpuRedis ? cpuRedis / cpuMemory : null;
  const rows = servers.map((server, i) => {
    const rs = runs.get(server.id);
    const cells = (key) => rs.map((r) => r[key] ?? '—').join(' / ');
    return [
      `${SCENARIO_LABELS[scenario]}, ${server.label}`,
      cells('rps'),
      cells('p50'),
      cells('p99'),
      `${cells('errors').replace(/ \/ /g, '+')} / ${cells('non2xx').replace(/ \/ /g, '+')}`,
      fmt(meanOf(rs, 'cpuUs'), 1),
      i === 0 ? '1.00' : fmt(ratio),
      i === 0 ? '1.00' : fmt(cpuRatio),
    ];
  });
  return { ratio, cpuRatio, rows };
}

function latencyRow(r) {
  return [
    r.label,
    `${r.count} / ${r.lost}`,
    fmt(r.p50),
    fmt(r.p99),
    fmt(r.max),
    `${fmt(r.sendP50)} / ${fmt(r.sendP99)}`,
    r.clockAnomalies,
  ];
}

module.exports = {
  id: 'scale-out',
  title: 'Scale-out on Redis',
  async run({ quick, log = () => {} }) {
    const t0 = performance.now();
    const options = { concurrency: CONCURRENCY, ...timings(quick), sessionsPerRun: quick ? 200 : 2_000 };
    const ticks = quick ? 50 : 500;
    const warmupTicks = quick ? 10 : 50;
    const url = redisUrl();
    // Fails here, naming the URL, when Redis does not answer: the runner records the section as skipped.
    const redis = await connectRedis(url);
    const prefix = `conduit-bench:scale-out:${process.pid}:${randomUUID().slice(0, 8)}:`;
    const redisEnv = { BENCH_STORE: 'redis', BENCH_KEY_PREFIX: prefix, REDIS_URL: url };
    const json = { ...options, pool: POOL, ticks, warmupTicks, gapMs: GAP_MS, redisUrl: url, prefix, scenarios: {} };
    const started = [];
    const start = async (id, label, env, warmup) => {
      const server = await prepareServer({ id, label, env, pool: POOL, concurrency: CONCURRENCY, warmup });
      started.push(server);
      log(`scale-out ${id}: ready on ${server.url}`);
      return server;
    };
    try {
      const memory = await start('memory', 'in-memory stores', {}, options.warmup);
      const onRedis = await start('redis', 'Redis stores (McpRedisModule)', redisEnv, options.warmup);
      const pair = [memory, onRedis];
      for (const scenario of ['legacy', 'modern', 'open'])
        json.scenarios[scenario] = scenarioRows(scenario, pair, await sideBySide(pair, scenario, options, log));

      const second = await start('redis-b', 'second Redis instance', redisEnv, 0);
      const paths = [
        { id: 'memory', label: 'one instance, in-memory bus (baseline)', listen: memory, trigger: memory },
        { id: 'redis-local', label: 'one instance, Redis bus', listen: onRedis, trigger: onRedis },
        { id: 'redis-cross', label: 'instance B → stream on instance A, Redis bus', listen: onRedis, trigger: second },
      ];
      json.latency = {};
      for (const p of paths) {
        const r = await measureNotifyLatency({
          listenUrl: p.listen.url,
          triggerUrl: p.trigger.url,
          count: ticks,
          warmup: warmupTicks,
          gapMs: GAP_MS,
        });
        log(`scale-out latency ${p.id}: p50 ${r.p50} p99 ${r.p99} max ${r.max} ms, lost ${r.lost}`);
        json.latency[p.id] = { label: p.label, ...r };
      }
    } finally {
      await Promise.all(started.map((s) => stopServer(s.started.child)));
      // The servers are down: nothing writes under the prefix any more.
      try {
        const deleted = await deleteKeys(redis, prefix);
        json.cleanup = { deleted, left: await countKeys(redis, prefix) };
        log(`scale-out: ${deleted} Redis keys under ${prefix} deleted, ${json.cleanup.left} left`);
      } finally {
        redis.disconnect();
      }
    }
    json.seconds = Math.round((performance.now() - t0) / 1000);
    log(`scale-out: measured in ${json.seconds} s`);

    const cross = json.latency['redis-cross'];
    const p99 = cross.lost === 0 ? cross.p99 : null;
    const targets = [
      target(LEGACY_TARGET, json.scenarios.legacy.ratio, 0.6),
      target(MODERN_TARGET, json.scenarios.modern.ratio, 0.95),
      { target: LATENCY_TARGET, value: p99, threshold: SOFT_P99_MS, met: p99 != null && p99 <= SOFT_P99_MS },
    ];
    const markdown = [
      '## Scale-out on Redis',
      '',
      `Two servers of \`conduit.ts\`: one on the in-memory stores, one with \`BENCH_STORE=redis\` (\`McpRedisModule\`: ` +
        `sessions, streams, bus and tasks on ${url}, under a key prefix of this run), both pinned to CPU 0 like every ` +
        `server (Redis is not pinned), loaded side by side by the same client at ${CONCURRENCY} in flight, two runs ` +
        `each in A B B A order, each after a warm-up of its own (${options.warmup} s, then ${options.duration} s ` +
        `measured). Legacy (2025-11-25) calls go round robin over ${POOL} sessions opened up front; modern ` +
        `(2026-07-28) calls have no session; "session opened" is ${options.sessionsPerRun} initialize + ` +
        `notifications/initialized per run (the requests that write the session store; figures in sessions/s and CPU ` +
        `µs per session). With a shared store, a session live on its instance is served once the store confirms its ` +
        `record still exists (one EXISTS: another instance may have deleted it); the record itself is read when ` +
        `another instance adopts the session. The ratios are Redis over in-memory.`,
      '',
      table(
        ['scenario', 'per s (run 1 / run 2)', 'p50 ms', 'p99 ms', 'errors / non-2xx', 'CPU µs', '× per s', '× CPU'],
        Object.values(json.scenarios).flatMap((s) => s.rows),
      ),
      '',
      `Resource update latency: a \`subscriptions/listen\` stream watches \`bench://tick/<seq>\`; the \`tick\` tool, ` +
        `called ${ticks} times (after ${warmupTicks} not counted), one at a time, ${GAP_MS} ms apart, publishes the ` +
        `update (\`McpServer.notifyResourceUpdated\`) and answers with the moment it did. Publish → arrival runs from ` +
        `that moment to the arrival of the chunk at the client (the machine's monotonic clock, which both processes read); ` +
        `"call → arrival" from the client sending the call instead (no shared clock needed). "Clock anomalies" ` +
        `counts updates said to be published outside [call sent, arrival]. The client runs on CPU 1, both instances ` +
        `on CPU 0.`,
      '',
      table(
        ['path', 'counted / lost', 'p50 ms', 'p99 ms', 'max ms', 'call → arrival p50 / p99 ms', 'clock anomalies'],
        Object.values(json.latency).map(latencyRow),
      ),
      '',
      `Redis keys of the run deleted afterwards: ${json.cleanup.deleted} (${json.cleanup.left} left).`,
      '',
      ...targets.map(targetLine),
      '',
    ].join('\n');
    return { markdown, json, targets };
  },
};

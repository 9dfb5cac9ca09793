#!/usr/bin/env node
'use strict';
// npm run bench [-- --quick] [-- --only=raw,conduit-modern,stdio] [-- --baseline=<commit>] [-- --concurrency=16]:
// the HTTP table (servers side by side), then the
// sections (bench/sections/*.js), then every target with its verdict; writes bench/results/.
const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const { startServer, stopServer, killAllSync, rssMb, cpuSeconds, pinning, root } = require('./lib/procs');
const { requestShape, openLegacySession, probe } = require('./lib/protocol');
const { load } = require('./lib/load');
const { servers, listScenarios, CONCURRENCY } = require('./lib/scenarios');
const report = require('./lib/report');
const { buildServers } = require('./lib/build');
const { prepareBaseline, baselineServers } = require('./lib/baseline');

// Sections, in the order they run (each: bench/sections/<id>.js).
const SECTIONS = [
  'stdio',
  'client',
  'payloads',
  'mrtr',
  'coldstart',
  'sessions',
  'rss',
  'scale-out',
  'observability',
  'session-scale',
  'connections',
  'fanout',
  'registry',
  'streaming',
];

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
// --check: exit 1 when a scenario of this project or a section could not be measured (a smoke check for CI).
const check = argv.includes('--check');
const only = (argv.find((a) => a.startsWith('--only=')) || '').slice(7).split(',').filter(Boolean);
// --baseline=<commit>: also measure this project's server at that commit, side by side (rows `baseline-*`).
const baselineRef = (argv.find((a) => a.startsWith('--baseline=')) || '').slice(11);
// --concurrency=n: the tools/call table at that concurrency only.
const onlyConcurrency = Number((argv.find((a) => a.startsWith('--concurrency=')) || '').slice(14)) || undefined;
const WARMUP = quick ? 1 : 2;
const DURATION = quick ? 2 : 10;

// Re-run this script pinned to CPU 1 (servers go to CPU 0).
if (pinning && !process.env.BENCH_PINNED) {
  const child = spawn('taskset', ['-c', '1', process.execPath, __filename, ...argv], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_PINNED: '1' },
  });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 130 : 0)));
  return;
}

process.on('exit', killAllSync);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    try {
      load.current && load.current.stop();
    } catch {}
    killAllSync();
    process.exit(130);
  });
}

const log = (...a) => console.error('[bench]', ...a);

function available(mod) {
  try {
    require.resolve(mod, { paths: [root] });
    return true;
  } catch {
    return false;
  }
}

/** Starts a server and prepares its request: legacy session, correctness probe, warm-up. */
async function prepare(spec, method) {
  const started = await startServer(spec.file, spec.env, undefined, spec.serversDir);
  try {
    const url = `http://127.0.0.1:${started.port}/mcp`;
    const sessionId = spec.era === 'legacy' && !spec.sessionless ? await openLegacySession(url) : undefined;
    if (spec.era === 'legacy' && !spec.sessionless && !sessionId)
      throw new Error('initialize returned no Mcp-Session-Id');
    const shape = requestShape(spec.era, method, sessionId);
    await probe(url, shape, method);
    await load(url, shape, 16, WARMUP);
    return { spec, started, url, shape };
  } catch (error) {
    await stopServer(started.child);
    throw error;
  }
}

/**
 * Measures servers side by side: all of them up (idle ones cost no CPU), then for each concurrency, run 1 of every
 * server, then run 2 of every server, each run after a warm-up of its own. A machine whose speed drifts over minutes
 * (a shared host) then shifts every row of a concurrency alike, and the ratios hold. Failed servers go to `skipped`.
 */
async function measureSideBySide(specs, method, concurrencies, skipped) {
  const ready = [];
  try {
    for (const spec of specs) {
      log(`${spec.id}: starting ${spec.file}`);
      try {
        ready.push(await prepare(spec, method));
      } catch (error) {
        log(`${spec.id}: skipped: ${error.message}`);
        skipped.push({ id: spec.id, reason: error.message });
      }
    }
    const rows = [];
    for (const c of concurrencies) {
      const runs = new Map(ready.map((server) => [server, []]));
      for (let i = 0; i < 2; i++) {
        // Run 2 goes in the reverse order of run 1 (A B … B A): a machine that drifts during a round then favours
        // no row, which matters most to the rows compared with each other (a baseline beside its counterpart).
        for (const server of i === 0 ? ready : [...ready].reverse()) {
          // Its own warm-up first: a server idle while the others ran has had its heap shrunk by V8's memory reducer
          // (measured: a run straight after 20 s idle was up to 25 % slower, the CPU-bound servers hit hardest).
          await load(server.url, server.shape, c, WARMUP);
          const cpuBefore = cpuSeconds(server.started.pid);
          const r = await load(server.url, server.shape, c, DURATION);
          const cpuAfter = cpuSeconds(server.started.pid);
          r.cpuUs =
            cpuBefore === null || cpuAfter === null || !r.total ? null : ((cpuAfter - cpuBefore) * 1e6) / r.total;
          log(
            `${server.spec.id} c=${c} run ${i + 1}: ${r.rps} req/s p50 ${r.p50} p99 ${r.p99} err ${r.errors} non2xx ${r.non2xx} cpu ${r.cpuUs?.toFixed(1) ?? '—'} µs/req`,
          );
          runs.get(server).push(r);
        }
      }
      for (const server of ready) {
        const { spec } = server;
        rows.push({
          id: spec.id,
          label: spec.label,
          group: spec.group,
          concurrency: c,
          method,
          runs: runs.get(server),
          rssMb: rssMb(server.started.pid),
        });
      }
    }
    return rows;
  } finally {
    await Promise.all(ready.map((server) => stopServer(server.started.child)));
  }
}

async function main() {
  const meta = {
    startedAt: new Date().toISOString(),
    quick,
    node: process.version,
    cpu: (os.cpus()[0] || {}).model,
    cores: os.cpus().length,
    pinned: Boolean(process.env.BENCH_PINNED),
    warmupS: WARMUP,
    durationS: DURATION,
  };
  const result = { meta, rows: [], lists: [], skipped: [], sections: [], targets: [] };
  log('compiling the TypeScript servers into bench/.build');
  buildServers();
  const pick = (s) => !only.length || only.includes(s.id);
  const candidates = [...servers];
  const baseline = baselineRef ? prepareBaseline(baselineRef, log) : undefined;
  if (baseline) {
    // Each baseline row right after its counterpart, so the two are measured next to each other.
    for (const row of baselineServers(baseline)) {
      const counterpart = candidates.findIndex((s) => s.id === row.id.replace('baseline-', 'conduit-'));
      candidates.splice(counterpart + 1, 0, row);
    }
  }
  const present = candidates
    // A baseline row runs with its counterpart (`--only=client --baseline=…` measures no server row).
    .filter((s) => pick(s) || (s.group === 'baseline' && pick({ id: s.id.replace('baseline-', 'conduit-') })))
    .filter((spec) => {
      if (!spec.requires || available(spec.requires)) return true;
      result.skipped.push({ id: spec.id, reason: `${spec.requires} is not installed` });
      return false;
    });
  const concurrencies = onlyConcurrency ? [onlyConcurrency] : CONCURRENCY;
  result.rows.push(...(await measureSideBySide(present, 'tools/call', concurrencies, result.skipped)));
  const lists = listScenarios.filter(pick).map((spec) => ({ ...spec, group: 'self' }));
  if (lists.length) result.lists.push(...(await measureSideBySide(lists, 'tools/list', [16], result.skipped)));
  result.rows.sort((a, b) => a.concurrency - b.concurrency);
  report.addRatios(result.rows);
  // With --only, only the targets of what ran.
  result.targets.push(...report.httpTargets(result.rows, result.lists).filter((t) => !only.length || t.value != null));
  for (const id of SECTIONS.filter((id) => !only.length || only.includes(id))) {
    const section = require(`./sections/${id}`);
    log(`${id}: ${section.title}`);
    try {
      const r = await section.run({ quick, log, baseline });
      result.sections.push({ id, title: section.title, markdown: r.markdown, json: r.json, targets: r.targets });
      result.targets.push(...r.targets);
    } catch (error) {
      log(`${id}: failed: ${error.stack || error.message}`);
      result.skipped.push({ id, reason: error.message });
    }
  }
  const { md, mdPath } = report.write(result, path.join(__dirname, 'results'));
  console.log(md);
  log(`written ${path.relative(root, mdPath)} and .json`);
  const own = new Set([
    ...servers.filter((s) => s.group !== 'peer').map((s) => s.id),
    ...listScenarios.map((s) => s.id),
    ...SECTIONS,
  ]);
  const failed = [
    ...result.skipped.filter((s) => own.has(s.id)).map((s) => s.id),
    ...result.targets.filter((t) => t.value == null).map((t) => t.target),
  ];
  if (check && failed.length) {
    log(`not measured: ${failed.join('; ')}`);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error);
  killAllSync();
  process.exit(1);
});

'use strict';
// RSS under a steady load: autocannon tools/call at concurrency 16 for a fixed time while /proc/<pid>/status is
// sampled; growth after warm-up (end vs the sample at the end of warm-up) tells a leak from a heap that settles.
const { rssMb } = require('../lib/procs');
const { withServer } = require('../lib/with-server');
const { requestShape, openLegacySession, probe } = require('../lib/protocol');
const { load } = require('../lib/load');
const { round } = require('../lib/stats');
const { table, targetLines } = require('../lib/markdown');

const SERVERS = [
  { id: 'conduit-modern', label: 'this project, modern', file: 'conduit.ts', era: 'modern', self: true },
  { id: 'conduit-legacy', label: 'this project, legacy (1 session)', file: 'conduit.ts', era: 'legacy', self: true },
  {
    id: 'sdk-modern',
    label: 'SDK 2.x modern (comparison)',
    file: 'sdk.js',
    env: { BENCH_MODE: 'modern' },
    era: 'modern',
  },
];

async function measure(spec, seconds, everyS, warmupS) {
  return withServer(spec.file, spec.env, async (started, url) => {
    const sessionId = spec.era === 'legacy' ? await openLegacySession(url) : undefined;
    const shape = requestShape(spec.era, 'tools/call', sessionId);
    await probe(url, shape, 'tools/call');
    const samples = [{ t: 0, mb: rssMb(started.pid) }];
    const t0 = performance.now();
    const timer = setInterval(
      () => samples.push({ t: round((performance.now() - t0) / 1000), mb: rssMb(started.pid) }),
      everyS * 1000,
    );
    let r;
    try {
      r = await load(url, shape, 16, seconds);
    } finally {
      clearInterval(timer);
    }
    samples.push({ t: round((performance.now() - t0) / 1000), mb: rssMb(started.pid) });
    // The sample nearest the end of warm-up is the baseline.
    const warm = samples.reduce((a, b) => (Math.abs(b.t - warmupS) < Math.abs(a.t - warmupS) ? b : a));
    const end = samples[samples.length - 1];
    const afterWarm = samples.filter((s) => s.t >= warm.t).map((s) => s.mb);
    return {
      samples,
      load: r,
      min: Math.min(...samples.map((s) => s.mb)),
      max: Math.max(...samples.map((s) => s.mb)),
      warm: warm.mb,
      end: end.mb,
      growthPct: round(((end.mb - warm.mb) / warm.mb) * 100, 1),
      maxGrowthPct: round(((Math.max(...afterWarm) - warm.mb) / warm.mb) * 100, 1),
    };
  });
}

module.exports = {
  id: 'rss',
  title: 'RSS under load',
  async run({ quick, log = () => {} }) {
    const seconds = quick ? 6 : 60;
    const everyS = quick ? 1 : 5;
    const warmupS = quick ? 2 : 10;
    const rows = [];
    const json = { seconds, everyS, warmupS, servers: {} };
    const targets = [];
    for (const spec of SERVERS) {
      const target = `RSS flat under a 60 s load: growth after warm-up ≤ 5 % (${spec.label})`;
      try {
        const r = await measure(spec, seconds, everyS, warmupS);
        json.servers[spec.id] = r;
        log(
          `rss ${spec.id}: ${r.samples.map((s) => s.mb).join(' ')} MB; ${r.load.rps} req/s, err ${r.load.errors} non2xx ${r.load.non2xx}`,
        );
        rows.push([
          spec.label,
          r.load.rps,
          `${r.load.errors} / ${r.load.non2xx}`,
          `${r.min} – ${r.max}`,
          r.warm,
          r.end,
          `${r.growthPct} %`,
          `${r.maxGrowthPct} %`,
        ]);
        if (spec.self) targets.push({ target, value: r.growthPct, threshold: 5, met: r.growthPct <= 5 });
      } catch (error) {
        log(`rss ${spec.id}: ${error.message}`);
        json.servers[spec.id] = { error: error.message };
        rows.push([spec.label, '—', '—', '—', '—', '—', `failed: ${error.message.split('\n')[0].slice(0, 100)}`, '—']);
        if (spec.self) targets.push({ target, value: null, threshold: 5, met: false });
      }
    }
    const markdown = [
      '## RSS under load',
      '',
      `autocannon tools/call \`echo\`, concurrency 16, ${seconds} s per server; RSS sampled every ${everyS} s. Warm-up = the first ${warmupS} s.`,
      '',
      table(
        [
          'server',
          'req/s',
          'errors / non-2xx',
          'RSS min – max MB',
          `RSS at ${warmupS} s MB`,
          'RSS at end MB',
          'growth after warm-up',
          'max growth after warm-up',
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

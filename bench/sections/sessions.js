'use strict';
// Memory of many idle legacy sessions: RSS after a warm-up, then after opening N sessions (initialize +
// notifications/initialized each, 32 in flight over keep-alive) and letting the server settle. A sample of the
// sessions is called afterwards, to see whether the server still holds them (past maxSessions new ones are refused).
const http = require('node:http');
const { rssMb } = require('../lib/procs');
const { withServer } = require('../lib/with-server');
const { openSessions, callEcho, closeSession } = require('../lib/legacy-sessions');
const { round, sleep } = require('../lib/stats');
const { table, targetLines } = require('../lib/markdown');

const CONCURRENCY = 32;
const SERVERS = [
  { id: 'conduit-legacy', label: 'this project (conduit.ts), legacy', file: 'conduit.ts', self: true },
  // sdk.js legacy keeps one McpServer + NodeStreamableHTTPServerTransport per session in a Map: it can hold many.
  {
    id: 'sdk-legacy',
    label: 'SDK 2.x sessionful (sdk.js BENCH_MODE=legacy)',
    file: 'sdk.js',
    env: { BENCH_MODE: 'legacy' },
  },
];

async function measure(spec, count, log) {
  return withServer(spec.file, spec.env, async (started, url) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    try {
      // Warm-up (~600 requests): open, use and end 150 sessions, so the session code paths are compiled and the
      // heap has grown to its working size before the baseline is read.
      const warm = await openSessions(url, agent, 150, CONCURRENCY);
      if (!warm.ids.length) throw new Error(`warm-up: no session opened (${warm.firstError})`);
      for (const id of warm.ids) await callEcho(url, agent, id);
      await Promise.all(warm.ids.map((id) => closeSession(url, agent, id)));
      await sleep(1000);
      const before = rssMb(started.pid);
      const opened = await openSessions(url, agent, count, CONCURRENCY);
      log(`sessions ${spec.id}: ${opened.ids.length} opened, ${opened.refused} refused in ${Math.round(opened.ms)} ms`);
      await sleep(2000);
      const after = rssMb(started.pid);
      // Are they still there? Call 20 sessions spread over the opening order (first and last included).
      const sample = [
        ...new Set(Array.from({ length: 20 }, (_, i) => opened.ids[Math.round((i * (opened.ids.length - 1)) / 19)])),
      ].filter(Boolean);
      let alive = 0;
      for (const id of sample) if (await callEcho(url, agent, id)) alive++;
      const rssAfterCalls = rssMb(started.pid);
      return {
        count,
        opened: opened.ids.length,
        refused: opened.refused,
        firstError: opened.firstError,
        openMs: Math.round(opened.ms),
        before,
        after,
        rssAfterCalls,
        alive,
        sampled: sample.length,
      };
    } finally {
      agent.destroy();
    }
  });
}

module.exports = {
  id: 'sessions',
  title: 'Memory of idle legacy sessions',
  async run({ quick, log = () => {} }) {
    const count = quick ? 1000 : 10_000;
    // Quick mode measures 1 000 sessions and scales them up, which overstates (the heap grows in steps): say so.
    const TARGET = `10 000 idle legacy sessions cost ≤ 50 MB${quick ? ' (quick: 1 000 measured, scaled ×10, an overstatement)' : ''}`;
    const rows = [];
    const json = { count, concurrency: CONCURRENCY, servers: {} };
    const targets = [];
    for (const spec of SERVERS) {
      let r;
      try {
        r = await measure(spec, count, log);
      } catch (error) {
        log(`sessions ${spec.id}: ${error.message}`);
        json.servers[spec.id] = { error: error.message };
        rows.push([spec.label, '—', '—', '—', '—', '—', '—', `failed: ${error.message.split('\n')[0].slice(0, 120)}`]);
        if (spec.self) targets.push({ target: TARGET, value: null, threshold: 50, met: false });
        continue;
      }
      const delta = r.after - r.before;
      const perSessionKb = (delta * 1024) / Math.max(1, r.opened);
      const per10k = round((perSessionKb * 10_000) / 1024, 1);
      json.servers[spec.id] = { ...r, deltaMb: round(delta), perSessionKb: round(perSessionKb, 2), per10kMb: per10k };
      rows.push([
        spec.label,
        `${r.opened} / ${r.refused}`,
        `${Math.round((r.opened * 1000) / r.openMs)}`,
        `${r.before} → ${r.after}`,
        round(delta),
        round(perSessionKb, 2),
        per10k,
        `${r.alive}/${r.sampled}${r.firstError ? `; first refusal: ${r.firstError.slice(0, 80)}` : ''}`,
      ]);
      if (spec.self) targets.push({ target: TARGET, value: per10k, threshold: 50, met: per10k <= 50 });
    }
    const markdown = [
      '## Memory of idle legacy sessions',
      '',
      `${count} legacy sessions (initialize + notifications/initialized, ${CONCURRENCY} in flight, keep-alive) after a warm-up of ` +
        `150 sessions opened, called and DELETEd; RSS read 1 s after the warm-up and 2 s after the last session opened. ` +
        `${quick ? 'Quick mode: the 10 000 column scales the per-session figure, which overstates it (the heap grows in steps: 1 000 sessions measured 11.8 KB each on this project, 10 000 measured 2.3 KB each).' : ''} The server's default \`http.maxSessions\` is 10 000 (past it, new sessions get 503).`,
      '',
      table(
        [
          'server',
          'opened / refused',
          'sessions/s',
          'RSS MB before → after',
          'Δ MB',
          'KB/session',
          'MB per 10 000',
          'sampled sessions alive',
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

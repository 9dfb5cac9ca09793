'use strict';
// MRTR round trips (modern era, one form elicitation) per second, against plain tools/call on the same server
// measured by the same driver (16 keep-alive loops), so the ratio is the price of a round trip.
const http = require('node:http');
const { withServer } = require('../lib/with-server');
const { runLoops } = require('../lib/loops');
const { echo, askRoundTrip } = require('../lib/mrtr-client');
const { mean } = require('../lib/stats');
const { table } = require('../lib/markdown');

const CONCURRENCY = 16;
// Both servers register `ask` only with BENCH_MRTR=1 (sdk.js: inputRequired / inputResponse of the 2.x SDK).
const SERVERS = [
  { id: 'conduit', label: 'this project (ctx.input.elicit)', file: 'conduit.ts', env: { BENCH_MRTR: '1' } },
  {
    id: 'sdk',
    label: 'SDK 2.x createMcpHandler (inputRequired)',
    file: 'sdk.js',
    env: { BENCH_MODE: 'modern', BENCH_MRTR: '1' },
  },
];

async function measure(spec, warmupS, seconds, log) {
  return withServer(spec.file, spec.env, async (_started, url) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    try {
      const plainRun = (s) => runLoops({ concurrency: CONCURRENCY, seconds: s, iteration: () => echo(url, agent) });
      const mrtrRun = (s) =>
        runLoops({ concurrency: CONCURRENCY, seconds: s, iteration: () => askRoundTrip(url, agent) });
      await askRoundTrip(url, agent); // correctness first: throws with the server's answer
      await plainRun(warmupS);
      await mrtrRun(warmupS);
      const plain = [];
      const mrtr = [];
      // Interleaved, so drift (another load on the machine, GC) hits both kinds alike.
      for (let i = 0; i < 2; i++) {
        plain.push(await plainRun(seconds));
        mrtr.push(await mrtrRun(seconds));
        log(
          `mrtr ${spec.id} run ${i + 1}: plain ${plain[i].rate}/s (err ${plain[i].errors}), round trips ${mrtr[i].rate}/s (err ${mrtr[i].errors}${mrtr[i].firstError ? `: ${mrtr[i].firstError}` : ''})`,
        );
      }
      return { plain, mrtr };
    } finally {
      agent.destroy();
    }
  });
}

module.exports = {
  id: 'mrtr',
  title: 'MRTR round trips',
  async run({ quick, log = () => {} }) {
    const warmupS = 1;
    const seconds = quick ? 2 : 10;
    const results = {};
    const rows = [];
    for (const spec of SERVERS) {
      try {
        const r = (results[spec.id] = await measure(spec, warmupS, seconds, log));
        const ratio = mean(r.mrtr.map((x) => x.rate)) / mean(r.plain.map((x) => x.rate));
        rows.push([
          spec.label,
          r.mrtr.map((x) => x.rate).join(' / '),
          r.mrtr.map((x) => x.p99).join(' / '),
          r.plain.map((x) => x.rate).join(' / '),
          r.plain.map((x) => x.p99).join(' / '),
          `${r.mrtr.map((x) => x.errors).join('+')} / ${r.plain.map((x) => x.errors).join('+')}`,
          ratio.toFixed(2),
        ]);
      } catch (error) {
        log(`mrtr ${spec.id}: ${error.message}`);
        results[spec.id] = { error: error.message };
        rows.push([spec.label, '—', '—', '—', '—', '—', `failed: ${error.message.split('\n')[0].slice(0, 120)}`]);
      }
    }
    const markdown = [
      '## MRTR round trips',
      '',
      `Modern era (2026-07-28). A round trip = tools/call \`ask\` → \`input_required\` (one form elicitation, \`requestState\`) → ` +
        `retry with the accepted answer → \`complete\` with the answer echoed; every answer checked. ${CONCURRENCY} keep-alive loops ` +
        `(node:http Agent), warm-up ${warmupS} s each, two ${seconds} s runs, plain and MRTR interleaved. No target.`,
      '',
      table(
        [
          'server',
          'round trips/s (run 1 / run 2)',
          'p99 ms',
          'plain tools/call/s (run 1 / run 2)',
          'p99 ms',
          'errors (MRTR / plain)',
          'round trips ÷ plain calls',
        ],
        rows,
      ),
      '',
      'A round trip is two HTTP requests, so 0.5 would mean the round trip costs nothing beyond its second request.',
      '',
    ].join('\n');
    return { markdown, json: { concurrency: CONCURRENCY, warmupS, seconds, results }, targets: [] };
  },
};

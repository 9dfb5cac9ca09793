'use strict';
// tools/call with a large `text` argument (10 KB, 100 KB) at concurrency 16: what body parsing, validation and
// serialisation cost per byte, against raw node:http doing only JSON.parse/stringify.
const { rssMb } = require('../lib/procs');
const { withServer } = require('../lib/with-server');
const { requestShape, openLegacySession } = require('../lib/protocol');
const { post, jsonRpcOf } = require('../lib/http-post');
const { load } = require('../lib/load');
const { mean } = require('../lib/stats');
const { table } = require('../lib/markdown');

const SIZES = [10 * 1024, 100 * 1024];
const SERVERS = [
  { id: 'raw', label: 'raw node:http (limit)', file: 'raw-http.js', era: 'modern' },
  { id: 'conduit-modern', label: 'this project, modern', file: 'conduit.ts', era: 'modern' },
  { id: 'conduit-legacy', label: 'this project, legacy (1 session)', file: 'conduit.ts', era: 'legacy' },
  { id: 'sdk-modern', label: 'SDK 2.x modern', file: 'sdk.js', env: { BENCH_MODE: 'modern' }, era: 'modern' },
];

// ASCII text of `bytes` bytes that JSON does not escape.
const textOf = (bytes) => 'abcdefghij'.repeat(Math.ceil(bytes / 10)).slice(0, bytes);

async function measure(spec, warmupS, seconds, log) {
  return withServer(spec.file, spec.env, async (started, url) => {
    const sessionId = spec.era === 'legacy' ? await openLegacySession(url) : undefined;
    const out = [];
    for (const size of SIZES) {
      const text = textOf(size);
      const shape = requestShape(spec.era, 'tools/call', sessionId, text);
      // Probe: the whole text must come back.
      const r = await post(url, shape.headers, shape.body(1));
      const msg = r.status === 200 ? jsonRpcOf(r.text) : undefined;
      const echoed = msg && msg.result && msg.result.content && msg.result.content[0].text;
      if (echoed !== text) throw new Error(`probe ${size} B: HTTP ${r.status} ${r.text.slice(0, 200)}`);
      await load(url, shape, 16, warmupS);
      const runs = [];
      for (let i = 0; i < 2; i++) runs.push(await load(url, shape, 16, seconds));
      log(`payloads ${spec.id} ${size} B: ${runs.map((x) => `${x.rps} req/s p99 ${x.p99}`).join(', ')}`);
      out.push({ size, runs, rssMb: rssMb(started.pid) });
    }
    return out;
  });
}

module.exports = {
  id: 'payloads',
  title: 'Large payloads',
  async run({ quick, log = () => {} }) {
    const warmupS = 1;
    const seconds = quick ? 2 : 10;
    const results = {};
    const skipped = [];
    for (const spec of SERVERS) {
      try {
        results[spec.id] = await measure(spec, warmupS, seconds, log);
      } catch (error) {
        log(`payloads ${spec.id}: ${error.message}`);
        skipped.push(`${spec.label}: ${error.message.split('\n')[0].slice(0, 200)}`);
      }
    }
    const rows = [];
    for (const size of SIZES) {
      const raw = (results.raw || []).find((x) => x.size === size);
      for (const spec of SERVERS) {
        const m = (results[spec.id] || []).find((x) => x.size === size);
        if (!m) continue;
        const rps = mean(m.runs.map((r) => r.rps));
        rows.push([
          `${size / 1024} KB`,
          spec.label,
          m.runs.map((r) => r.rps).join(' / '),
          m.runs.map((r) => r.p99).join(' / '),
          `${m.runs.map((r) => r.errors).join('+')} / ${m.runs.map((r) => r.non2xx).join('+')}`,
          m.rssMb,
          raw ? (rps / mean(raw.runs.map((r) => r.rps))).toFixed(2) : '—',
        ]);
      }
    }
    const markdown = [
      '## Large payloads',
      '',
      `tools/call \`echo\` with a 10 KB and a 100 KB \`text\` argument (echoed back), concurrency 16, warm-up ${warmupS} s, two runs of ${seconds} s. No target.`,
      '',
      table(['text', 'server', 'req/s (run 1 / run 2)', 'p99 ms', 'errors / non-2xx', 'RSS MB', '× raw'], rows, [
        'l',
        'l',
        'r',
        'r',
        'r',
        'r',
        'r',
      ]),
      ...(skipped.length ? ['', 'Skipped:', '', ...skipped.map((s) => `- ${s}`)] : []),
      '',
    ].join('\n');
    return { markdown, json: { sizes: SIZES, warmupS, seconds, results, skipped }, targets: [] };
  },
};

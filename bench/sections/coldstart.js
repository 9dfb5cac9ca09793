'use strict';
// Cold start to the first answered request: from spawn to the first HTTP 200 with the right body, per server.
// The port is known only once the server prints READY, so the clock covers boot + listen + the first answer
// (which includes lazy work done on the first request, e.g. compiling a tool's input schema).
const { startServer, stopServer } = require('../lib/procs');
const { requestShape } = require('../lib/protocol');
const { post, jsonRpcOf } = require('../lib/http-post');
const { median, round, sleep } = require('../lib/stats');
const { table, targetLines } = require('../lib/markdown');

const TEXT = 'hello bench';

// Each server and the first request that proves it answers.
const mcpCheck = (text) => {
  const msg = text && jsonRpcOf(text);
  const content = msg && msg.result && msg.result.content;
  return Boolean(content && content[0] && content[0].text === TEXT && !msg.result.isError);
};
const mcpRequest = () => {
  const shape = requestShape('modern', 'tools/call');
  return { path: '/mcp', headers: shape.headers, body: shape.body(1), check: mcpCheck };
};
const SERVERS = [
  { id: 'conduit', label: 'this project (conduit.ts, modern tools/call)', file: 'conduit.ts', request: mcpRequest },
  {
    id: 'bare-nest',
    label: 'bare Nest + Express (bare-nest.ts, POST /echo)',
    file: 'bare-nest.ts',
    request: () => ({
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: TEXT }),
      check: (text) => text === JSON.stringify({ text: TEXT }),
    }),
  },
  {
    id: 'sdk',
    label: 'SDK 2.x (sdk.js, createMcpHandler, modern)',
    file: 'sdk.js',
    env: { BENCH_MODE: 'modern' },
    request: mcpRequest,
  },
  { id: 'raw', label: 'raw node:http (raw-http.js)', file: 'raw-http.js', request: mcpRequest },
];

/**
 * One start: ms from spawn to READY and to the first correct answer. `afterAnswer(started)` (optional) then runs on
 * the server before it is stopped (the registry section reads RSS and lists the tools there); what it resolves is
 * returned as `after`.
 */
async function oneStart(spec, afterAnswer) {
  const t0 = performance.now();
  const started = await startServer(spec.file, spec.env);
  const ready = performance.now() - t0;
  try {
    const req = spec.request();
    const url = `http://127.0.0.1:${started.port}${req.path}`;
    // Poll: a server may print READY a moment before it answers correctly.
    let answered;
    for (let i = 0; i < 2000 && answered === undefined; i++) {
      try {
        const r = await post(url, req.headers, req.body, false, 5000);
        if (r.status === 200 && req.check(r.text)) answered = performance.now() - t0;
      } catch {}
      if (answered === undefined) await sleep(2);
    }
    if (answered === undefined) throw new Error(`${spec.file}: no correct answer`);
    // Outside the polling's try: a failure here is the caller's, not a reason to poll again.
    return afterAnswer ? { ready, answered, after: await afterAnswer(started) } : { ready, answered };
  } finally {
    await stopServer(started.child);
  }
}

module.exports = {
  // For the registry section, which times starts the same way.
  oneStart,
  mcpRequest,
  SERVERS,
  id: 'coldstart',
  title: 'Cold start',
  async run({ quick, log = () => {} }) {
    const starts = quick ? 2 : 5;
    // One unrecorded start per server first, so every measured start finds the files in the OS page cache.
    for (const spec of SERVERS) await oneStart(spec);
    // Two runs; within a run the servers take turns, so a burst of noise does not hit one server's starts only.
    const results = Object.fromEntries(SERVERS.map((s) => [s.id, [[], []]]));
    for (let run = 0; run < 2; run++) {
      for (let i = 0; i < starts; i++) {
        for (const spec of SERVERS) {
          const r = await oneStart(spec);
          results[spec.id][run].push(r);
          log(
            `coldstart ${spec.id} run ${run + 1} #${i + 1}: READY ${round(r.ready)} ms, answered ${round(r.answered)} ms`,
          );
        }
      }
    }
    const med = (id, run, key) => round(median(results[id][run].map((r) => r[key])));
    const both = (id, key) => (med(id, 0, key) + med(id, 1, key)) / 2;
    const rows = SERVERS.map((s) => [
      s.label,
      `${med(s.id, 0, 'answered')} / ${med(s.id, 1, 'answered')}`,
      `${med(s.id, 0, 'ready')} / ${med(s.id, 1, 'ready')}`,
      (both(s.id, 'answered') / both('bare-nest', 'answered')).toFixed(2),
    ]);
    const ratio = round(both('conduit', 'answered') / both('bare-nest', 'answered'), 2);
    const targets = [
      { target: "cold start ≤ 1.5 × a bare Nest app's", value: ratio, threshold: 1.5, met: ratio <= 1.5 },
    ];
    const markdown = [
      `## Cold start`,
      '',
      `Spawn → first HTTP 200 with the right body (the port taken from the server's READY line, then polled). ` +
        `Median of ${starts} starts per run, two runs (servers interleaved, one unrecorded start each first).`,
      '',
      table(['server', 'first answer ms (run 1 / run 2)', 'READY ms (run 1 / run 2)', '× bare Nest'], rows),
      '',
      ...targetLines(targets),
      '',
    ].join('\n');
    return { markdown, json: { starts, results }, targets };
  },
};

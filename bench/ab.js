'use strict';
// node bench/ab.js <baseline worktree dir name in bench/.baseline/> [modern|legacy] [pairs]: the bench server of this
// tree and of a baseline (prepared by `npm run bench -- --baseline=<commit>`) loaded in turns, 10 pairs (default) of
// 2 s at 16 connections (alternating which goes first), each pair's server CPU µs per request side by side. On a host whose speed shifts over
// minutes, the pairs still compare like with like; the medians summarize.
const path = require('node:path');
const { startServer, stopServer, cpuSeconds, root } = require('./lib/procs');
const { requestShape, openLegacySession } = require('./lib/protocol');
const { load } = require('./lib/load');
const { buildServers } = require('./lib/build');
const base = process.argv[2];
const era = process.argv[3] || 'modern';
const rounds = Number(process.argv[4] || 10);
(async () => {
  // This tree's bench servers, compiled from its sources as they are now.
  buildServers();
  const servers = [
    ['head', await startServer('conduit.ts')],
    [
      'base',
      await startServer('conduit.ts', {}, 60_000, path.join(root, 'bench', '.baseline', base, 'bench', 'servers')),
    ],
  ];
  const shapes = [];
  for (const [, s] of servers) {
    const url = `http://127.0.0.1:${s.port}/mcp`;
    const sid = era === 'legacy' ? await openLegacySession(url) : undefined;
    shapes.push({ url, shape: requestShape(era, 'tools/call', sid) });
  }
  for (const [n] of servers.entries()) await load(shapes[n].url, shapes[n].shape, 16, 2);
  const us = { head: [], base: [] };
  for (let round = 0; round < rounds; round++) {
    // Alternating which one goes first: on a host whose speed drifts, the first of a pair would otherwise be favoured.
    const order = round % 2 ? [1, 0] : [0, 1];
    for (const n of order) {
      const [name, s] = servers[n];
      const before = cpuSeconds(s.child.pid);
      const r = await load(shapes[n].url, shapes[n].shape, 16, 2);
      const cpu = cpuSeconds(s.child.pid) - before;
      us[name].push((cpu * 1e6) / r.total);
    }
  }
  const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  console.log(era, 'head', us.head.map((x) => x.toFixed(1)).join(' '));
  console.log(era, 'base', us.base.map((x) => x.toFixed(1)).join(' '));
  console.log(
    era,
    'median head',
    med(us.head).toFixed(1),
    'base',
    med(us.base).toFixed(1),
    'base/head',
    (med(us.base) / med(us.head)).toFixed(3),
    // Each pair ran side by side: the median of their ratios is the figure least moved by the host's drift.
    'median pair ratio',
    med(us.base.map((b, n) => b / us.head[n])).toFixed(3),
  );
  for (const [, s] of servers) await stopServer(s.child);
  process.exit(0);
})();

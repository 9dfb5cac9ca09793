'use strict';
// Markdown table and JSON file from the collected rows.
const fs = require('node:fs');
const path = require('node:path');

const mean = (runs) => runs.reduce((s, r) => s + r.rps, 0) / runs.length;
// The server's CPU µs per request, over its runs (null when /proc could not tell).
const meanCpu = (runs) =>
  runs.every((r) => r.cpuUs != null) ? runs.reduce((s, r) => s + r.cpuUs, 0) / runs.length : null;
const fmt = (x, d = 2) => (x == null || Number.isNaN(x) ? '—' : x.toFixed(d));

/** Adds `ratioRaw` / `ratioPeer` to every tools/call row (mean req/s of its runs over raw's / the best peer's at the same concurrency). */
function addRatios(rows) {
  for (const row of rows) {
    const same = rows.filter((r) => r.concurrency === row.concurrency && r.runs.length);
    const raw = same.find((r) => r.group === 'raw');
    const peers = same.filter((r) => r.group === 'peer');
    const best = peers.length ? peers.reduce((a, b) => (mean(a.runs) >= mean(b.runs) ? a : b)) : null;
    row.meanRps = Math.round(mean(row.runs));
    row.ratioRaw = raw ? mean(row.runs) / mean(raw.runs) : null;
    row.ratioPeer = best ? mean(row.runs) / mean(best.runs) : null;
    row.bestPeer = best ? best.id : null;
  }
}

/** The HTTP targets of issue 5, from the tools/call rows and the tools/list rows. */
function httpTargets(rows, lists) {
  const targets = [];
  const row = (id, c) => rows.find((r) => r.id === id && r.concurrency === c && r.runs.length);
  for (const [id, name] of [
    ['conduit-modern', 'modern'],
    ['conduit-legacy', 'legacy'],
  ]) {
    const r = row(id, 16);
    const value = r ? r.ratioRaw : null;
    targets.push({
      target: `tools/call ${name} (guard + interceptor) ≥ 0.50 × raw at concurrency 16`,
      value,
      threshold: 0.5,
      met: value != null && value >= 0.5,
    });
  }
  const meanP99 = (r) => r.runs.reduce((s, x) => s + x.p99, 0) / r.runs.length;
  const peers = rows.filter((r) => r.group === 'peer' && r.concurrency === 64 && r.runs.length);
  const bestPeerP99 = peers.length ? Math.min(...peers.map(meanP99)) : null;
  for (const [id, name] of [
    ['conduit-modern', 'modern'],
    ['conduit-legacy', 'legacy'],
  ]) {
    const r = row(id, 64);
    const value = r && bestPeerP99 != null ? meanP99(r) : null;
    targets.push({
      target: `tools/call ${name}: p99 at concurrency 64 (ms) ≤ the best peer's (${bestPeerP99 ?? '—'} ms)`,
      value,
      threshold: bestPeerP99,
      met: value != null && value <= bestPeerP99,
    });
  }
  // With --baseline: each era at concurrency 16 against the same server at the baseline commit, in this run.
  for (const [id, name] of [
    ['conduit-modern', 'modern'],
    ['conduit-legacy', 'legacy'],
  ]) {
    const base = row(`baseline-${name}`, 16);
    if (!base) continue;
    const r = row(id, 16);
    const value = r ? mean(r.runs) / mean(base.runs) : null;
    targets.push({
      target: `tools/call ${name} ≥ 0.95 × the baseline commit at concurrency 16`,
      value,
      threshold: 0.95,
      met: value != null && value >= 0.95,
    });
    // The same comparison in CPU per request (the baseline's over this row's: above 1 is cheaper), which a shared
    // host's drift moves less than req/s.
    const [cpu, baseCpu] = [r && meanCpu(r.runs), meanCpu(base.runs)];
    const cpuValue = cpu && baseCpu ? baseCpu / cpu : null;
    targets.push({
      target: `tools/call ${name}: CPU per request ≤ 1/0.95 × the baseline commit's at concurrency 16 (baseline ÷ this)`,
      value: cpuValue,
      threshold: 0.95,
      met: cpuValue != null && cpuValue >= 0.95,
    });
  }
  const five = lists.find((l) => l.id === 'conduit-list-5');
  const fifty = lists.find((l) => l.id === 'conduit-list-50');
  const value = five && fifty ? mean(fifty.runs) / mean(five.runs) : null;
  targets.push({
    target: 'tools/list with 50 tools ≥ 0.8 × tools/list with 5 tools',
    value,
    threshold: 0.8,
    met: value != null && value >= 0.8,
  });
  return targets;
}

function markdown(result) {
  const { meta, rows, lists, skipped, sections = [], targets = [] } = result;
  const out = [];
  out.push(`# Benchmark ${meta.startedAt}${meta.quick ? ' (quick)' : ''}`, '');
  out.push(
    `Node ${meta.node}, ${meta.cpu} (${meta.cores} cores), ${meta.pinned ? 'server pinned to CPU 0, load (autocannon) to CPU 1' : 'no CPU pinning'}; ` +
      `warm-up ${meta.warmupS} s, ${meta.durationS} s per run, two runs per row. tools/call \`echo\` over Streamable HTTP on 127.0.0.1.`,
    '',
  );
  out.push(
    '| server | conc. | req/s (run 1 / run 2) | p50 ms | p99 ms | errors / non-2xx | CPU µs/req | RSS MB | × raw | × best peer |',
  );
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const runs = r.runs;
    out.push(
      `| ${r.label} | ${r.concurrency} | ${runs.map((x) => x.rps).join(' / ')} | ${runs.map((x) => x.p50).join(' / ')} | ${runs.map((x) => x.p99).join(' / ')} | ` +
        `${runs.map((x) => x.errors).join('+')} / ${runs.map((x) => x.non2xx).join('+')} | ${fmt(meanCpu(runs), 1)} | ${r.rssMb ?? '—'} | ${fmt(r.ratioRaw)} | ${r.group === 'peer' && r.id === r.bestPeer ? '1.00 (best)' : fmt(r.ratioPeer)} |`,
    );
  }
  if (lists.length) {
    out.push('', '`tools/list` (this project, modern, concurrency 16):', '');
    out.push('| scenario | req/s (run 1 / run 2) | p50 ms | p99 ms | errors / non-2xx | RSS MB | × 5-tool list |');
    out.push('|---|---:|---:|---:|---:|---:|---:|');
    const base = lists.find((l) => l.id === 'conduit-list-5');
    for (const l of lists) {
      out.push(
        `| ${l.label} | ${l.runs.map((x) => x.rps).join(' / ')} | ${l.runs.map((x) => x.p50).join(' / ')} | ${l.runs.map((x) => x.p99).join(' / ')} | ` +
          `${l.runs.map((x) => x.errors).join('+')} / ${l.runs.map((x) => x.non2xx).join('+')} | ${l.rssMb ?? '—'} | ${base ? fmt(mean(l.runs) / mean(base.runs)) : '—'} |`,
      );
    }
  }
  for (const section of sections) out.push('', section.markdown.trimEnd());
  if (targets.length) {
    const met = targets.filter((t) => t.met).length;
    out.push(
      '',
      `## Targets (${met} of ${targets.length} met)`,
      '',
      '| target | measured | threshold | met |',
      '|---|---:|---:|:---:|',
    );
    for (const t of targets)
      out.push(`| ${t.target} | ${fmt(t.value)} | ${t.threshold ?? '—'} | ${t.met ? 'yes' : '**no**'} |`);
  }
  if (skipped.length) {
    out.push('', 'Skipped:', '');
    for (const s of skipped) out.push(`- ${s.id}: ${s.reason.split('\n')[0].slice(0, 300)}`);
  }
  out.push('');
  return out.join('\n');
}

function write(result, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const stamp = result.meta.startedAt.replace(/[:.]/g, '-');
  const md = markdown(result);
  const mdPath = path.join(dir, `${stamp}.md`);
  fs.writeFileSync(mdPath, md);
  fs.writeFileSync(path.join(dir, `${stamp}.json`), JSON.stringify(result, null, 2) + '\n');
  return { md, mdPath };
}

module.exports = { addRatios, httpTargets, markdown, write };

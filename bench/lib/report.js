'use strict';
// Markdown table and JSON file from the collected rows.
const fs = require('node:fs');
const path = require('node:path');

const mean = (runs) => runs.reduce((s, r) => s + r.rps, 0) / runs.length;
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

function markdown(result) {
  const { meta, rows, lists, skipped } = result;
  const out = [];
  out.push(`# Benchmark ${meta.startedAt}${meta.quick ? ' (quick)' : ''}`, '');
  out.push(
    `Node ${meta.node}, ${meta.cpu} (${meta.cores} cores), ${meta.pinned ? 'server pinned to CPU 0, load (autocannon) to CPU 1' : 'no CPU pinning'}; ` +
      `warm-up ${meta.warmupS} s, ${meta.durationS} s per run, two runs per row. tools/call \`echo\` over Streamable HTTP on 127.0.0.1.`,
    '',
  );
  out.push('| server | conc. | req/s (run 1 / run 2) | p50 ms | p99 ms | errors / non-2xx | RSS MB | × raw | × best peer |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const runs = r.runs;
    out.push(
      `| ${r.label} | ${r.concurrency} | ${runs.map((x) => x.rps).join(' / ')} | ${runs.map((x) => x.p50).join(' / ')} | ${runs.map((x) => x.p99).join(' / ')} | ` +
        `${runs.map((x) => x.errors).join('+')} / ${runs.map((x) => x.non2xx).join('+')} | ${r.rssMb ?? '—'} | ${fmt(r.ratioRaw)} | ${r.group === 'peer' && r.id === r.bestPeer ? '1.00 (best)' : fmt(r.ratioPeer)} |`,
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

module.exports = { addRatios, markdown, write };

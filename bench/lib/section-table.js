'use strict';
// Shared by the bench/sections/* modules: timings per mode, means and ratios, the Markdown table and target lines.

/** Warm-up and per-run seconds: smoke mode ≈ 1.5 s per measurement, otherwise 10 s after a 2 s warm-up. */
const timings = (quick) => (quick ? { warmup: 1, duration: 1.5 } : { warmup: 2, duration: 10 });

const meanCps = (runs) => (runs && runs.length ? runs.reduce((s, r) => s + r.cps, 0) / runs.length : null);
const fmt = (x, d = 2) => (x == null || Number.isNaN(x) ? '—' : x.toFixed(d));

/** rows: [{ label, inflight, runs, ratio, note }]; `ratioHeader` names the last column. */
function table(rows, ratioHeader) {
  const out = [
    `| scenario | in flight | calls/s (run 1 / run 2) | errors | ${ratioHeader} |`,
    '|---|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const runs = r.runs || [];
    const figures = runs.length ? runs.map((x) => x.cps).join(' / ') : `— (${r.note || 'not measured'})`;
    const errors = runs.length ? runs.map((x) => x.errors).join('+') : '—';
    out.push(`| ${r.label} | ${r.inflight} | ${figures} | ${errors} | ${fmt(r.ratio)} |`);
  }
  return out.join('\n');
}

/** A target object plus its Markdown line. */
function target(name, value, threshold) {
  const met = value != null && value >= threshold;
  return { target: name, value: value == null ? null : Math.round(value * 1000) / 1000, threshold, met };
}
const targetLine = (t) => `- ${t.met ? '✅' : '❌'} ${t.target}: ${fmt(t.value)} (threshold ${t.threshold})`;

module.exports = { timings, meanCps, fmt, table, target, targetLine };

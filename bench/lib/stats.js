'use strict';
// Small statistics helpers for the sections.
const sorted = (xs) => [...xs].sort((a, b) => a - b);

function median(xs) {
  if (!xs.length) return null;
  const s = sorted(xs);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
function percentile(xs, p) {
  if (!xs.length) return null;
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const round = (x, d = 1) => (x == null || Number.isNaN(x) ? null : Math.round(x * 10 ** d) / 10 ** d);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

module.exports = { median, percentile, mean, round, sleep };

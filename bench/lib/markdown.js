'use strict';
// A Markdown table from a header row and data rows ('—' for null/undefined cells).
const cell = (v) => (v == null || (typeof v === 'number' && Number.isNaN(v)) ? '—' : String(v));

/** `align`: one 'l' or 'r' per column (default: first column left, the rest right). */
function table(head, rows, align) {
  const a = align || head.map((_, i) => (i === 0 ? 'l' : 'r'));
  return [
    `| ${head.join(' | ')} |`,
    `|${a.map((x) => (x === 'r' ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** The Markdown line of a section's targets. */
function targetLines(targets) {
  return targets.map(
    (t) =>
      `- Target "${t.target}": ${t.value == null ? 'not measured' : t.value} (threshold ${t.threshold}) — ${t.met ? 'met' : 'NOT met'}`,
  );
}

module.exports = { table, targetLines };

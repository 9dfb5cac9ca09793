#!/usr/bin/env node
// Convention: every ```ts block of README.md (and of docs/**/*.md) compiles as a module of its own. A block may be
// preceded (directly, only blank lines between) by one hidden HTML comment `<!-- snippet: ... -->` whose body is
// TypeScript prepended to the block before compiling: imports, and `declare`s of the reader's own things
// (`declare function verifyAccessToken(t: string): Promise<...>;`, `declare class RedisClient {}`). A class member
// shows its class in the visible block; no `…` placeholders; `main.ts` code wraps its awaits in
// `async function bootstrap() { … } void bootstrap();` (the scratch app is CommonJS: no top-level await).
//
// Used by test/readme-snippets.spec.ts (type-checked against the repo's sources) and by the packaging test (compiled
// in a scratch Nest app against the packed tarballs):
//   node test/packaging/readme-snippets.js <outDir> [files…]   writes <outDir>/<name>.ts (default: README.md, docs/)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
// typedoc's output (typedoc.json `out`) holds copies of README.md: its blocks are README's own.
const SKIPPED_DIRS = new Set([path.join(ROOT, 'docs', 'api'), path.join(ROOT, 'node_modules')]);
const TS_LANGS = new Set(['ts', 'typescript']);
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const SNIPPET_OPEN = /^\s*<!--\s*snippet:/;

/**
 * The ```ts blocks of a Markdown file, each with its hidden prelude prepended.
 *
 * @param {string} markdownPath
 * @param {string} [prefix] names are `<prefix>-<n>` (default: the path from the repository root, `readme` for README.md)
 * @returns {{ name: string, file: string, line: number, code: string, lines: number[] }[]} `line`: the Markdown line
 *   (1-based) of the block's first code line; `lines[i]`: the Markdown line of the code's line i (0-based).
 * @example
 * extractSnippets('README.md')[0]; // { name: 'readme-1', line: 48, code: "import { Injectable… }", … }
 */
function extractSnippets(markdownPath, prefix = snippetPrefix(markdownPath)) {
  const source = fs.readFileSync(markdownPath, 'utf8').split(/\r?\n/);
  const snippets = [];
  for (let i = 0; i < source.length; i++) {
    const open = FENCE.exec(source[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const end = closingFence(source, i + 1, fence);
    if (TS_LANGS.has(lang.toLowerCase())) {
      const prelude = hiddenPrelude(source, i);
      const body = dedent(source.slice(i + 1, end), indent.length);
      const lines = [...prelude.lines, ...body.map((_, k) => i + 2 + k)];
      const code = [...prelude.code, ...body].join('\n') + '\n';
      snippets.push({ name: `${prefix}-${snippets.length + 1}`, file: markdownPath, line: i + 2, code, lines });
    }
    i = end;
  }
  return snippets;
}

function closingFence(source, from, fence) {
  for (let j = from; j < source.length; j++) {
    const trimmed = source[j].trim();
    if (trimmed.startsWith(fence) && /^[`~]+$/.test(trimmed) && trimmed[0] === fence[0]) return j;
  }
  return source.length;
}

/** The `<!-- snippet: … -->` comment right above the fence at `fenceIndex` (blank lines between allowed). */
function hiddenPrelude(source, fenceIndex) {
  let last = fenceIndex - 1;
  while (last >= 0 && source[last].trim() === '') last--;
  if (last < 0 || !source[last].trimEnd().endsWith('-->')) return { code: [], lines: [] };
  let first = last;
  while (first >= 0 && !source[first].includes('<!--')) first--;
  if (first < 0 || !SNIPPET_OPEN.test(source[first])) return { code: [], lines: [] };
  const text = source.slice(first, last + 1);
  text[0] = text[0].replace(SNIPPET_OPEN, '');
  text[text.length - 1] = text[text.length - 1].replace(/-->\s*$/, '');
  const filled = text.map((l, k) => (l.trim() ? k : -1)).filter((k) => k >= 0);
  if (!filled.length) return { code: [], lines: [] };
  const kept = text.slice(filled[0], filled[filled.length - 1] + 1);
  const indent = Math.min(...kept.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)[0].length));
  const code = kept.map((l) => l.slice(Math.min(indent, /^\s*/.exec(l)[0].length)).trimEnd());
  return { code, lines: code.map((_, k) => first + filled[0] + 1 + k) };
}

/** A fenced block inside a list item is indented like its fence: the code is not. */
function dedent(lines, width) {
  return lines.map((l) => l.slice(Math.min(width, /^\s*/.exec(l)[0].length)));
}

function snippetPrefix(markdownPath) {
  const relative = path.relative(ROOT, path.resolve(markdownPath));
  const inside = !relative.startsWith('..') && !path.isAbsolute(relative);
  const stem = (inside ? relative : path.basename(markdownPath)).replace(/\.md$/i, '');
  return stem
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** README.md and every docs/**\/*.md of the repository, in a stable order. */
function defaultMarkdownFiles() {
  const files = [path.join(ROOT, 'README.md')];
  const walk = (dir) => {
    if (!fs.existsSync(dir) || SKIPPED_DIRS.has(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.toLowerCase().endsWith('.md')) files.push(full);
    }
  };
  walk(path.join(ROOT, 'docs'));
  return files;
}

/**
 * Writes `<outDir>/<name>.ts` for every snippet of `files` (default: README.md and docs/**\/*.md).
 *
 * @param {string} outDir
 * @param {string[]} [files]
 * @returns {{ name: string, file: string, line: number, code: string, lines: number[], path: string }[]}
 * @example
 * writeSnippets('/tmp/snippets'); // [{ name: 'readme-1', path: '/tmp/snippets/readme-1.ts', … }, …]
 */
function writeSnippets(outDir, files = defaultMarkdownFiles()) {
  fs.mkdirSync(outDir, { recursive: true });
  const written = [];
  for (const file of files) {
    for (const snippet of extractSnippets(file)) {
      const target = path.join(outDir, `${snippet.name}.ts`);
      fs.writeFileSync(target, snippet.code);
      written.push({ ...snippet, path: target });
    }
  }
  return written;
}

module.exports = { extractSnippets, writeSnippets, defaultMarkdownFiles };

if (require.main === module) {
  const [outDir, ...files] = process.argv.slice(2);
  if (!outDir || outDir === '--help') {
    process.stderr.write('usage: node test/packaging/readme-snippets.js <outDir> [files…]\n');
    process.exit(outDir ? 0 : 2);
  }
  const written = writeSnippets(path.resolve(outDir), files.length ? files.map((f) => path.resolve(f)) : undefined);
  for (const s of written) process.stdout.write(`${s.path}\t${path.relative(process.cwd(), s.file)}:${s.line}\n`);
}

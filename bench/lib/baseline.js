'use strict';
// --baseline=<commit>: this project's bench server at an earlier commit, measured in the same run as the current one.
// The commit is checked out into bench/.baseline/<sha> (a git worktree sharing the repository's node_modules) and its
// bench servers compiled there, so its rows run the old libs with the same dependencies.
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

/** Prepares the worktree of `ref`; returns the directory holding its `boot.js`, its compiled `.build`, its short sha. */
function prepareBaseline(ref, log) {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: root, encoding: 'utf8' }).trim();
  const dir = path.join(root, 'bench', '.baseline', sha.slice(0, 12));
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    log(`baseline: checking out ${sha.slice(0, 12)} into ${path.relative(root, dir)}`);
    fs.rmSync(dir, { recursive: true, force: true });
    execFileSync('git', ['worktree', 'add', '--detach', '--force', dir, sha], { cwd: root, stdio: 'ignore' });
  }
  const modules = path.join(dir, 'node_modules');
  if (!fs.existsSync(modules)) fs.symlinkSync(path.join(root, 'node_modules'), modules, 'dir');
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  const built = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'bench', 'tsconfig.json'), '--noCheck'], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`baseline tsc failed:\n${built.stdout}${built.stderr}`);
  return {
    servers: path.join(dir, 'bench', 'servers'),
    build: path.join(dir, 'bench', '.build'),
    sha: sha.slice(0, 12),
  };
}

/** The baseline rows: the `conduit.ts` server of the commit, modern and legacy. */
function baselineServers(baseline) {
  return ['modern', 'legacy'].map((era) => ({
    id: `baseline-${era}`,
    label: `conduit ${era} at ${baseline.sha} (baseline)`,
    group: 'baseline',
    file: 'conduit.ts',
    serversDir: baseline.servers,
    era,
  }));
}

module.exports = { prepareBaseline, baselineServers };

'use strict';
// Compiles the TypeScript servers (and the libs they import) once into bench/.build, so servers run as plain JS:
// no ts-node compiler in their memory (it would add ~100 MB of RSS) and the same code path as a built app.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

function buildServers() {
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'bench', 'tsconfig.json'), '--noCheck'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`tsc failed:\n${r.stdout}${r.stderr}`);
}

module.exports = { buildServers, outDir: path.join(root, 'bench', '.build') };

#!/usr/bin/env node
// Runs as a lib's `prepack` (npm pack / npm publish, from libs/<lib>): builds the lib and the libs it references into
// their dist/, and copies the repository's LICENSE into the package, so every tarball carries it.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const lib = process.cwd();
const root = path.resolve(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
const built = spawnSync(process.execPath, [tsc, '-b', path.join(lib, 'tsconfig.package.json')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
fs.copyFileSync(path.join(root, 'LICENSE'), path.join(lib, 'LICENSE'));

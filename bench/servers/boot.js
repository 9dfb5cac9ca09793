'use strict';
// Runs a compiled server from bench/.build with the @conduit-mcp/* path aliases: node bench/servers/boot.js conduit
const path = require('node:path');
const root = path.resolve(__dirname, '..', '..');
const out = path.join(root, 'bench', '.build');
const { compilerOptions } = require(path.join(root, 'tsconfig.json'));
require('tsconfig-paths').register({ baseUrl: out, paths: compilerOptions.paths });
require(path.join(out, 'bench', 'servers', `${process.argv[2]}.js`));

'use strict';
// Runs one extracted README snippet (`node snippet.runner.cjs <file.ts>`) the way a reader's app would run its
// main.ts, but over the repository's sources: TypeScript compiled on the fly, `@conduit-mcp/*` mapped by the root
// tsconfig.json's `paths`. The snippet's directory must resolve the other packages (a `node_modules` link).
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const project = path.join(ROOT, 'tsconfig.json');

require('ts-node').register({ project, transpileOnly: true });
const tsconfigPaths = require('tsconfig-paths');
const config = tsconfigPaths.loadConfig(ROOT);
if (config.resultType !== 'success') throw new Error(`Cannot read ${project}: ${config.message}`);
tsconfigPaths.register({ baseUrl: config.absoluteBaseUrl, paths: config.paths });

const file = process.argv[2];
if (!file) throw new Error('usage: node snippet.runner.cjs <snippet.ts>');
require(path.resolve(file));

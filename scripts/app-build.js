'use strict';
// Builds one app of the monorepo the way it runs: the libs first, each into its dist/ (`tsc -b`, incremental), then
// the app with the Nest CLI. The libs are npm workspaces, so a built app requires `@conduit-mcp/*` from
// node_modules, that is from libs/*/dist: building the app alone could run it on libs built earlier.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const LIB_PROJECTS = ['core', 'server', 'client', 'redis', 'metrics'].map((lib) =>
  path.join(root, 'libs', lib, 'tsconfig.package.json'),
);

/** Builds the libs, then `app`; output goes to `stdio` (stderr by default, so an app on stdio stays clean). Returns the exit status. */
function buildApp(app, stdio = ['ignore', 2, 2]) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const libs = spawnSync(process.execPath, [tsc, '-b', ...LIB_PROJECTS], { cwd: root, stdio });
  if (libs.status !== 0) return libs.status ?? 1;
  const nest = path.join(root, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js');
  const built = spawnSync(process.execPath, [nest, 'build', app], { cwd: root, stdio });
  return built.status ?? 1;
}

module.exports = { buildApp };

'use strict';
// The round-robin nginx of the scale-out scenarios, for plain-JS scripts (scripts/conformance.js --scale-out): this
// loads test/scenarios/scale-out/nginx.balancer.ts itself, transpiled in memory with the project's TypeScript, so that
// the scripts and the Jest scenarios run one nginx configuration, one start/stop logic and one access-log format
// rather than a JS twin that could drift. That file imports only node: modules, which keeps this possible.
// Exports what it exports: startRoundRobin(backends), stopAllBalancers(), parseAccessLine(line), nginxBinary().
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const source = path.resolve(__dirname, '..', 'test', 'scenarios', 'scale-out', 'nginx.balancer.ts');

function load() {
  const ts = require('typescript');
  const { outputText, diagnostics } = ts.transpileModule(fs.readFileSync(source, 'utf8'), {
    fileName: source,
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  if (diagnostics?.length) {
    const messages = diagnostics.map((item) => ts.flattenDiagnosticMessageText(item.messageText, '\n'));
    throw new Error(`cannot load ${path.relative(process.cwd(), source)}: ${messages.join('; ')}`);
  }
  // Compiled as that file itself, so that its __dirname (where it finds .cache/nginx) stays what it is under Jest.
  const loaded = new Module(source, module);
  loaded.filename = source;
  loaded.paths = Module._nodeModulePaths(path.dirname(source));
  loaded._compile(outputText, source);
  for (const name of ['startRoundRobin', 'stopAllBalancers', 'parseAccessLine', 'nginxBinary'])
    if (typeof loaded.exports[name] !== 'function') throw new Error(`${source} no longer exports ${name}()`);
  return loaded.exports;
}

module.exports = load();

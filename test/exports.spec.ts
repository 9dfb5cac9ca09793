import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { LIBS, ROOT } from './support/import-graph';

/**
 * The public surface of each package entry (each subpath of a lib's `exports` map: `@conduit-mcp/server`,
 * `@conduit-mcp/server/testing`…), frozen: a change to what an entry exports shows up as a snapshot diff, to be
 * reviewed (and the README, CHANGELOG and docs updated) in the same commit. This is the public API of the version
 * policy. Update with `npx jest test/exports.spec.ts -u`.
 */
const ENTRIES: Array<[specifier: string, index: string]> = LIBS.flatMap((lib) => {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'libs', lib, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types: string; default: string }>;
  };
  return Object.entries(manifest.exports)
    .filter(([subpath]) => subpath !== './package.json')
    .map(([subpath, target]): [string, string] => {
      if (typeof target === 'string') throw new Error(`${lib}: export ${subpath} must have types and default`);
      // ./dist/<dir>/index.d.ts is built from src/<dir>/index.ts.
      const source = target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts');
      return [`@conduit-mcp/${lib}${subpath.slice(1)}`, path.join(ROOT, 'libs', lib, source)];
    });
});
const indexes = ENTRIES.map(([, index]) => index);
const config = ts.getParsedCommandLineOfConfigFile(
  path.join(ROOT, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  },
)!;
const program = ts.createProgram(indexes, { ...config.options, noEmit: true, incremental: false });
const checker = program.getTypeChecker();

/** `name: kind` for every export of a lib's index.ts, sorted; kind is what a user imports: a value or a type only. */
function surface(index: string): string[] {
  const source = program.getSourceFile(index)!;
  const module = checker.getSymbolAtLocation(source)!;
  return checker
    .getExportsOfModule(module)
    .map((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return `${symbol.name}: ${target.flags & ts.SymbolFlags.Value ? 'value' : 'type'}`;
    })
    .sort();
}

describe.each(ENTRIES)('public exports of %s', (specifier, index) => {
  it('match the reviewed snapshot', () => {
    expect(surface(index)).toMatchSnapshot();
  });

  it('at run time, are exactly the value exports', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const runtime = Object.keys(require(specifier) as object).sort();
    const values = surface(index)
      .filter((entry) => entry.endsWith(': value'))
      .map((entry) => entry.split(':')[0]);
    expect(runtime).toEqual(values);
  });
});

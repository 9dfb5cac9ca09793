import * as path from 'node:path';
import * as ts from 'typescript';
import { LIBS, ROOT } from './support/import-graph';

/**
 * The public surface of each lib, frozen: a change to what an index.ts exports shows up as a snapshot diff, to be
 * reviewed (and the README and docs updated) in the same commit. Update with `npx jest test/exports.spec.ts -u`.
 */
const indexes = LIBS.map((lib) => path.join(ROOT, 'libs', lib, 'src', 'index.ts'));
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

describe.each(LIBS)('public exports of @conduit-mcp/%s', (lib) => {
  const index = path.join(ROOT, 'libs', lib, 'src', 'index.ts');

  it('match the reviewed snapshot', () => {
    expect(surface(index)).toMatchSnapshot();
  });

  it('at run time, are exactly the value exports', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const runtime = Object.keys(require(`@conduit-mcp/${lib}`) as object).sort();
    const values = surface(index)
      .filter((entry) => entry.endsWith(': value'))
      .map((entry) => entry.split(':')[0]);
    expect(runtime).toEqual(values);
  });
});

import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const ROOT = resolve(__dirname, '..', '..');

/** A snippet written to disk by `test/packaging/readme-snippets.js`. */
export interface WrittenSnippet {
  name: string;
  /** The Markdown file it comes from. */
  file: string;
  /** The Markdown line of each of its code lines. */
  lines: number[];
  /** Where its `.ts` file is. */
  path: string;
}

/**
 * The compiler options snippets are checked with: the root tsconfig.json's (its `paths` map the packages to
 * libs/<lib>/src), strict, without Jest's globals, and with the module settings of a `nest new` app (Nest 11):
 * `nodenext` with `isolatedModules` is what makes a type imported without `import type` into a decorated signature
 * an error, and CommonJS files (no `"type": "module"`) what refuses top-level `await`.
 */
export function snippetCompilerOptions(): ts.CompilerOptions {
  const configPath = join(ROOT, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, configPath);
  return {
    ...options,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    isolatedModules: true,
    noEmit: true,
    strict: true,
    // The root tsconfig turns it off for the repository; a strict app (the packaging test's) has it on.
    strictPropertyInitialization: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    types: ['node'],
    incremental: false,
    declaration: false,
    sourceMap: false,
  };
}

/**
 * Type-checks the snippets as one program over the repository's sources and returns one line per diagnostic in a
 * snippet, e.g. `readme-3 (README.md:170): Cannot find name 'McpError'.`; none when all compile. Each snippet's
 * directory must resolve the packages it imports (a `node_modules` link to the repository's).
 */
export function typeCheckSnippets(snippets: WrittenSnippet[], options = snippetCompilerOptions()): string[] {
  const program = ts.createProgram({ rootNames: snippets.map((s) => s.path), options });
  const messages = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(format);
  for (const snippet of snippets) {
    const source = program.getSourceFile(snippet.path);
    if (!source) {
      messages.push(`${snippet.name}: not part of the program`);
      continue;
    }
    for (const diagnostic of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const line = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line;
      const where = `${relative(ROOT, snippet.file) || snippet.file}:${snippet.lines[line] ?? '?'}`;
      messages.push(`${snippet.name} (${where}): ${format(diagnostic)}`);
    }
  }
  return messages;
}

function format(diagnostic: ts.Diagnostic): string {
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
}

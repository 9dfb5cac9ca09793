import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

export const ROOT = path.resolve(__dirname, '../..');
export const LIBS = ['core', 'server', 'client', 'redis', 'metrics'] as const;
export type LibName = (typeof LIBS)[number];

/** One import of a source file: what it names, and the repository file it resolves to (relative imports only). */
export interface ImportEdge {
  from: string;
  specifier: string;
  /** Repository-relative path of the imported file, for a relative specifier that resolves; else undefined. */
  resolved?: string;
}

/** The source files of a lib (tests and declaration files left out), repository-relative. */
export function libSources(lib: LibName): string[] {
  const dir = path.join(ROOT, 'libs', lib, 'src');
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.ts$/.test(entry.name) && !/\.(spec|e2e-spec|fixtures-spec|d)\.ts$/.test(entry.name)) {
        out.push(path.relative(ROOT, full));
      }
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Every import of a file: static imports and re-exports (type-only ones too, since they still tie the files
 * together), `require()` and `import()`.
 */
export function importsOf(file: string): ImportEdge[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map(({ fileName: specifier }) => ({
    from: file,
    specifier,
    resolved: specifier.startsWith('.') ? resolveRelative(file, specifier) : undefined,
  }));
}

function resolveRelative(from: string, specifier: string): string | undefined {
  const base = path.join(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.d.ts`, path.join(base, 'index.ts')]) {
    const full = path.join(ROOT, candidate);
    if (fs.existsSync(full) && fs.statSync(full).isFile()) return path.normalize(candidate);
  }
  return path.normalize(base);
}

/** The import cycles of a graph (file → files it imports), each as the files of one strongly connected component. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<[node: string, edge: number]> = [[start, 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [node, edge] = frame;
      const targets = graph.get(node) ?? [];
      if (edge < targets.length) {
        frame[1]++;
        const target = targets[edge];
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) {
          low.set(node, Math.min(low.get(node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent)!, low.get(node)!));
      }
      if (low.get(node) === index.get(node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        const selfLoop = (graph.get(node) ?? []).includes(node);
        if (component.length > 1 || selfLoop) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

import * as path from 'node:path';
import * as fs from 'node:fs';
import { ImportEdge, LIBS, LibName, ROOT, findCycles, importsOf, libSources } from './support/import-graph';

/**
 * The dependency rules of the architecture document ("Rules"), checked on the lib sources (eslint checks the same
 * while editing): core imports no Nest and no other lib; server and client never import each other; redis builds on
 * the server and never imports the client, and no other lib imports redis; no lib imports
 * apps/, test/ or bench/; deep @nestjs/* paths only in invocation/nest-internals.ts; no file-level import cycle.
 */
const NEST_INTERNALS = new Set([
  'libs/server/src/invocation/nest-internals.ts',
  'libs/client/src/invocation/nest-internals.ts',
]);

const edges = new Map<LibName, ImportEdge[]>(
  LIBS.map((lib) => [lib, libSources(lib).flatMap((file) => importsOf(file))]),
);
const show = (found: ImportEdge[]) => found.map((edge) => `${edge.from} imports '${edge.specifier}'`);
const insideLib = (edge: ImportEdge, lib: LibName) => edge.resolved?.startsWith(`libs/${lib}/src/`) ?? false;
const namesLib = (edge: ImportEdge, lib: LibName) =>
  edge.specifier === `@conduit-mcp/${lib}` || edge.specifier.startsWith(`@conduit-mcp/${lib}/`) || insideLib(edge, lib);

describe('architecture: dependency rules', () => {
  it('finds the sources of every lib', () => {
    for (const lib of LIBS) expect(libSources(lib).length).toBeGreaterThan(10);
  });

  it('core imports no Nest package and no other lib', () => {
    const bad = edges
      .get('core')!
      .filter(
        (edge) =>
          edge.specifier.startsWith('@nestjs/') ||
          (['server', 'client', 'redis', 'metrics'] as const).some((lib) => namesLib(edge, lib)),
      );
    expect(show(bad)).toEqual([]);
  });

  it('redis builds on the server and never imports the client; no other lib imports redis', () => {
    expect(show(edges.get('redis')!.filter((edge) => namesLib(edge, 'client')))).toEqual([]);
    const intoRedis = (['server', 'client'] as const).flatMap((lib) =>
      edges.get(lib)!.filter((e) => namesLib(e, 'redis')),
    );
    expect(show(intoRedis)).toEqual([]);
  });

  it('metrics subscribes to the server and the client; no other lib imports metrics', () => {
    const intoMetrics = (['server', 'client', 'redis'] as const).flatMap((lib) =>
      edges.get(lib)!.filter((e) => namesLib(e, 'metrics')),
    );
    expect(show(intoMetrics)).toEqual([]);
    expect(show(edges.get('metrics')!.filter((edge) => namesLib(edge, 'redis')))).toEqual([]);
  });

  it('the server never imports the client, nor the client the server', () => {
    expect(show(edges.get('server')!.filter((edge) => namesLib(edge, 'client')))).toEqual([]);
    expect(show(edges.get('client')!.filter((edge) => namesLib(edge, 'server')))).toEqual([]);
  });

  it('no lib imports an app, a test or a benchmark', () => {
    const outside = (edge: ImportEdge) => edge.resolved !== undefined && /^(apps|test|bench)\//.test(edge.resolved);
    const bad = LIBS.flatMap((lib) => edges.get(lib)!.filter(outside));
    expect(show(bad)).toEqual([]);
  });

  it('no relative import leaves its own lib (other libs are imported by package name)', () => {
    const bad = LIBS.flatMap((lib) =>
      edges.get(lib)!.filter((edge) => edge.resolved !== undefined && !edge.resolved.startsWith(`libs/${lib}/src/`)),
    );
    expect(show(bad)).toEqual([]);
  });

  it('a lib is imported by its package name, never by a path inside it', () => {
    const bad = LIBS.flatMap((lib) => edges.get(lib)!.filter((edge) => /^@conduit-mcp\/[^/]+\//.test(edge.specifier)));
    expect(show(bad)).toEqual([]);
  });

  it('deep @nestjs/* paths appear only in invocation/nest-internals.ts', () => {
    const deep = (edge: ImportEdge) => /^@nestjs\/[^/]+\/.+/.test(edge.specifier) && !NEST_INTERNALS.has(edge.from);
    const bad = LIBS.flatMap((lib) => edges.get(lib)!.filter(deep));
    expect(show(bad)).toEqual([]);
    expect(fs.existsSync(path.join(ROOT, 'libs/server/src/invocation/nest-internals.ts'))).toBe(true);
  });

  it('nothing below the server transports imports node:http (transports pass TransportFacts)', () => {
    const below = /^libs\/server\/src\/(dispatch|eras|methods|invocation)\//;
    const http = /^(node:)?(http|https|http2)$/;
    const bad = edges.get('server')!.filter((edge) => below.test(edge.from) && http.test(edge.specifier));
    expect(show(bad)).toEqual([]);
  });

  it('no file-level import cycle under libs/ (type-only imports count)', () => {
    const graph = new Map<string, string[]>();
    for (const lib of LIBS) {
      for (const edge of edges.get(lib)!) {
        if (!graph.has(edge.from)) graph.set(edge.from, []);
        if (edge.resolved) graph.get(edge.from)!.push(edge.resolved);
      }
    }
    expect(findCycles(graph)).toEqual([]);
  });

  it("every lib's index.ts uses named exports only (no `export *`)", () => {
    for (const lib of LIBS) {
      const index = fs.readFileSync(path.join(ROOT, 'libs', lib, 'src', 'index.ts'), 'utf8');
      expect({ lib, starExports: index.match(/^export \*.*$/gm) ?? [] }).toEqual({ lib, starExports: [] });
    }
  });
});

describe('architecture: the cycle finder', () => {
  it('finds a two-file cycle, a longer one and a self-import, and nothing in a tree', () => {
    const graph = new Map<string, string[]>([
      ['a', ['b']],
      ['b', ['a', 'c']],
      ['c', ['d']],
      ['d', ['e']],
      ['e', ['c']],
      ['f', ['f']],
      ['g', ['a', 'h']],
      ['h', []],
    ]);
    expect(findCycles(graph).sort()).toEqual([['a', 'b'], ['c', 'd', 'e'], ['f']]);
    expect(
      findCycles(
        new Map([
          ['x', ['y', 'z']],
          ['y', ['z']],
          ['z', []],
        ]),
      ),
    ).toEqual([]);
  });
});

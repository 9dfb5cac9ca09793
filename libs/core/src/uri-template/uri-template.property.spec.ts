import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { UriTemplate } from './uri-template';

// A match must finish in bounded time. A blow-up is slow on every try, a pause of the shared machine on one: the
// fastest of three tries is compared, with a bound far above what a linear scan of 8192 characters needs.
const BOUND_MS = 50;
function fastestMs(run: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const OPERATORS = ['', '+', '#', '.', '/', ';', '?', '&'];
const CHARS = ['a', '/', '?', '#', '&', '=', ',', '.', ';', '%', '%2', '%25', ':', '-', 'é'];

/** A template of up to 32 expressions, each with up to 4 variables, separated by short or empty literals. */
const hostileTemplate = fc
  .array(
    fc.tuple(
      fc.constantFrom(...OPERATORS),
      fc.integer({ min: 1, max: 4 }),
      fc.boolean(),
      fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 2 }),
    ),
    { minLength: 1, maxLength: 32 },
  )
  .map((expressions) => {
    let n = 0;
    return expressions
      .map(([op, count, explode, literal]) => {
        const vars = Array.from({ length: count }, () => `v${n++}${explode ? '*' : ''}`);
        return `{${op}${vars.join(',')}}${literal}`;
      })
      .join('');
  })
  .filter((source) => source.length <= 1024);

/** A long URI of one short piece repeated, with an optional odd tail: the inputs that make backtrackers blow up. */
const hostileUri = fc
  .tuple(
    fc.string({ unit: fc.constantFrom(...CHARS), minLength: 1, maxLength: 4 }),
    fc.integer({ min: 1000, max: 8192 }),
    fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 3 }),
  )
  .map(([piece, length, tail]) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length - tail.length) + tail);

describe('UriTemplate (properties)', () => {
  it(`matches any long repetitive URI against any many-variable template in under ${BOUND_MS} ms`, () => {
    fc.assert(
      fc.property(hostileTemplate, hostileUri, (source, uri) => {
        const template = UriTemplate.parse(source);
        expect(fastestMs(() => template.match(uri))).toBeLessThan(BOUND_MS);
      }),
      { numRuns: 150 },
    );
  });

  it(`parses any template up to the limits, or refuses it, in under ${BOUND_MS} ms`, () => {
    const anyTemplate = fc.string({
      unit: fc.constantFrom('{', '}', '+', ',', '*', ':9', 'a', '%41', '.'),
      maxLength: 1100,
    });
    fc.assert(
      fc.property(anyTemplate, (source) => {
        expect(
          fastestMs(() => {
            try {
              UriTemplate.parse(source);
            } catch {
              // Refusing is fine; only the time matters here.
            }
          }),
        ).toBeLessThan(BOUND_MS);
      }),
      { numRuns: 150 },
    );
  });

  // Templates whose URIs read back unambiguously: each `{x}` after an expression has a literal before it, and
  // literals are made of characters that simple and path expansion always percent-encode.
  const segment = fc.record({
    op: fc.constantFrom('', '/'),
    literal: fc.constantFrom('/', ':', '@', '!', '/x/', ':y:', '@@'),
  });
  const simpleTemplate = fc
    .tuple(
      fc.constantFrom('res://', 'file:///', 'x:', ''),
      fc.array(segment, { minLength: 1, maxLength: 6 }),
      fc.constantFrom('', '{?q1,q2}', '{?q1}{&q2}'),
    )
    .map(([scheme, segments, query]) => {
      const parts = segments.map(({ op, literal }, i) => {
        const next = segments[i + 1];
        // `{x}` has no leading character, so what comes before it must end at a literal.
        const needsLiteral = next?.op === '';
        return `{${op}v${i}}${needsLiteral || i % 2 === 1 ? literal : ''}`;
      });
      return { source: `${scheme}${parts.join('')}${query}`, names: [...segments.keys()].map((i) => `v${i}`) };
    });
  // Any well-formed text, control characters and reserved characters included (lone surrogates cannot be UTF-8).
  const value = fc.string({
    unit: fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.constantFrom('/', '?', '#', '&', '=', '%', '%41', ',', ' '),
    ),
    maxLength: 12,
  });

  it('reads back the values it expanded, for any simple template and any values', () => {
    fc.assert(
      fc.property(
        simpleTemplate,
        fc.array(value, { minLength: 6, maxLength: 6 }),
        fc.option(fc.tuple(value, value)),
        ({ source, names }, values, query) => {
          const template = UriTemplate.parse(source);
          const variables: Record<string, string> = Object.fromEntries(names.map((name, i) => [name, values[i]]));
          if (source.includes('{?') && query) Object.assign(variables, { q1: query[0], q2: query[1] });
          const uri = template.expand(variables);
          expect(template.match(uri)).toEqual(variables);
        },
      ),
      { numRuns: 300 },
    );
  });
});

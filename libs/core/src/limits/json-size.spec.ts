import fc from 'fast-check';
import { jsonSizeUpTo } from './json-size';

const BIG = Number.MAX_SAFE_INTEGER;
// Strings JSON writes without escapes, so that the estimate can be compared with the real length from both sides.
const plainText = fc.constantFrom('a', 'Z', '0', ' ', 'é', '€', '-', '_');

describe('jsonSizeUpTo', () => {
  it('counts what JSON.stringify writes, give or take the separators', () => {
    expect(jsonSizeUpTo({ a: 'xy', b: [1, true, null] }, BIG)).toBe(
      JSON.stringify({ a: 'xy', b: [1, true, null] }).length + 2,
    );
    expect(jsonSizeUpTo('abc', BIG)).toBe(5);
    expect(jsonSizeUpTo([], BIG)).toBe(2);
    expect(jsonSizeUpTo({}, BIG)).toBe(2);
    expect(jsonSizeUpTo({ skipped: undefined, fn: () => 1 }, BIG)).toBeGreaterThanOrEqual(2);
  });

  it('never overestimates a JSON value by more than half, and never underestimates one without escapes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonSizeUpTo(value, BIG)).toBeLessThanOrEqual(1.5 * JSON.stringify(value).length);
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: plainText }), (value) => {
        expect(jsonSizeUpTo(value, BIG)).toBeGreaterThanOrEqual(JSON.stringify(value).length);
      }),
      { numRuns: 200 },
    );
  });

  it('stops past the limit: over it exactly when the whole count is, and the whole count otherwise', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(4_000), (value, limit) => {
        const whole = jsonSizeUpTo(value, BIG);
        const bounded = jsonSizeUpTo(value, limit);
        if (whole > limit) expect(bounded).toBeGreaterThan(limit);
        else expect(bounded).toBe(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('does work bounded by the limit, not by the value', () => {
    let reads = 0;
    const watched = <T extends object>(target: T, count: number): T => {
      for (let n = 0; n < count; n++)
        Object.defineProperty(target, String(n), { enumerable: true, get: () => (reads++, 'value') });
      return target;
    };
    expect(jsonSizeUpTo(watched(new Array<string>(10_000), 10_000), 1_000)).toBeGreaterThan(1_000);
    expect(reads).toBe(0);
    expect(jsonSizeUpTo(watched({}, 10_000), 1_000)).toBeGreaterThan(1_000);
    expect(reads).toBeLessThan(200);
  });

  it('ends on a cycle and on nesting deeper than the call stack', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(jsonSizeUpTo(cyclic, 10_000)).toBeGreaterThan(10_000);
    let deep: unknown = 'x';
    for (let n = 0; n < 200_000; n++) deep = [deep];
    expect(jsonSizeUpTo(deep, BIG)).toBe(200_000 * 3 + 3);
  });

  it('needs a finite limit', () => {
    expect(() => jsonSizeUpTo({}, Infinity)).toThrow(RangeError);
  });
});

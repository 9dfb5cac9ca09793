import fc from 'fast-check';
import { LOGGING_LEVELS } from '@conduit-mcp/core';
import { CUT_MARKER, MAX_LOG_DEPTH, MAX_LOG_STRING, sanitizeLogParams } from './log-entry.sanitizer';

const FORBIDDEN =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;
const codePoints = (s: string) => [...s].length;

/** Arrays and objects nested in `value` (a scalar is 0). */
function depth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depth));
}

/** Every string in `value`, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(strings);
  return Object.entries(value).flatMap(([key, item]) => [key, ...strings(item)]);
}

/** `levels` arrays nested around `inner`. */
function nestArrays(levels: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('sanitizeLogParams', () => {
  it('keeps only level, logger and data', () => {
    expect(sanitizeLogParams({ level: 'error', logger: 'db', data: { a: 1 }, _meta: { x: 1 }, extra: 'y' })).toEqual({
      level: 'error',
      logger: 'db',
      data: { a: 1 },
    });
  });

  it('keeps the eight RFC 5424 levels and turns anything else into info', () => {
    for (const level of LOGGING_LEVELS) expect(sanitizeLogParams({ level, data: 1 }).level).toBe(level);
    for (const level of ['ERROR', 'warn', 'fatal', '', 3, null, undefined, ['error']]) {
      expect(sanitizeLogParams({ level, data: 1 }).level).toBe('info');
    }
  });

  it('copes with params that are not an object', () => {
    for (const params of [undefined, null, 'text', 42, ['error']]) {
      expect(sanitizeLogParams(params)).toEqual({ level: 'info', data: null });
    }
  });

  it('sanitizes and clamps the logger, and omits one that is not a string', () => {
    expect(sanitizeLogParams({ level: 'info', logger: 'a\u001b[31mb\u202ec\n', data: 1 }).logger).toBe('a[31mbc');
    expect(sanitizeLogParams({ level: 'info', logger: 'x'.repeat(300), data: 1 }).logger).toBe(`${'x'.repeat(255)}…`);
    expect('logger' in sanitizeLogParams({ level: 'info', logger: 7, data: 1 })).toBe(false);
  });

  it('sanitizes every string in data, keys included, and keeps the shape', () => {
    const data = { 'k\u2028ey': ['a\nb', { 'x\u202e': 'y\u0000', n: 1, t: true, z: null }], plain: 'ok\ttab' };
    expect(sanitizeLogParams({ level: 'info', data }).data).toEqual({
      key: ['ab', { x: 'y', n: 1, t: true, z: null }],
      plain: 'ok\ttab',
    });
  });

  it('clamps data strings at 4096 code points: 4096 kept, 4097 cut', () => {
    expect(MAX_LOG_STRING).toBe(4096);
    const kept = 'a'.repeat(4096);
    expect(sanitizeLogParams({ data: kept }).data).toBe(kept);
    const cut = sanitizeLogParams({ data: 'a'.repeat(4097) }).data as string;
    expect(cut).toBe(`${'a'.repeat(4095)}…`);
    expect(codePoints(cut)).toBe(4096);
    const key = sanitizeLogParams({ data: { ['k'.repeat(5000)]: 1 } }).data as object;
    expect(codePoints(Object.keys(key)[0])).toBe(4096);
  });

  it('keeps 16 levels of nesting and cuts the 17th', () => {
    expect(MAX_LOG_DEPTH).toBe(16);
    const sixteen = nestArrays(16, 'leaf');
    expect(sanitizeLogParams({ data: sixteen }).data).toEqual(sixteen);
    const seventeen = sanitizeLogParams({ data: nestArrays(17, 'leaf') }).data;
    expect(seventeen).toEqual(nestArrays(16, CUT_MARKER));
    expect(depth(seventeen)).toBe(16);
    const objects = JSON.parse(`${'{"a":'.repeat(17)}1${'}'.repeat(17)}`);
    const cutObjects = sanitizeLogParams({ data: objects }).data;
    expect(depth(cutObjects)).toBe(16);
    expect(JSON.stringify(cutObjects)).toContain(`"a":"${CUT_MARKER}"`);
  });

  it('keeps a __proto__ key as data and does not touch prototypes', () => {
    const data = sanitizeLogParams({ data: JSON.parse('{"__proto__":{"polluted":true}}') }).data as object;
    expect(Object.keys(data)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('cuts cycles and keeps shared values', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(sanitizeLogParams({ data: cyclic }).data).toEqual({ name: 'loop', self: CUT_MARKER });
    const shared = { s: 1 };
    expect(sanitizeLogParams({ data: [shared, shared] }).data).toEqual([{ s: 1 }, { s: 1 }]);
  });

  it('turns values JSON cannot carry into null', () => {
    expect(sanitizeLogParams({ data: [undefined, () => 1, Symbol('s'), 10n] }).data).toEqual([null, null, null, null]);
  });

  it('always yields clean strings, bounded lengths and depth, on arbitrary input', () => {
    const deep = fc
      .tuple(fc.integer({ min: 0, max: 40 }), fc.jsonValue({ maxDepth: 3 }))
      .map(([levels, inner]) => nestArrays(levels, inner));
    const text = fc.string({ unit: 'binary', maxLength: 5000 });
    const data = fc.oneof(
      fc.jsonValue({ maxDepth: 20 }),
      deep,
      fc.dictionary(text, fc.oneof(text, deep), { maxKeys: 3 }),
      fc.anything({ maxDepth: 20, withBigInt: true, withMap: true, withNullPrototype: true }),
    );
    fc.assert(
      fc.property(fc.anything(), text, data, (level, logger, value) => {
        const out = sanitizeLogParams({ level, logger, data: value });
        expect(LOGGING_LEVELS).toContain(out.level);
        expect(Object.keys(out).every((key) => ['level', 'logger', 'data'].includes(key))).toBe(true);
        expect(depth(out.data)).toBeLessThanOrEqual(MAX_LOG_DEPTH);
        for (const s of strings(out.data)) {
          expect(s).not.toMatch(FORBIDDEN);
          expect(codePoints(s)).toBeLessThanOrEqual(MAX_LOG_STRING);
        }
        expect(out.logger).not.toMatch(FORBIDDEN);
        expect(codePoints(out.logger ?? '')).toBeLessThanOrEqual(256);
        expect(() => JSON.stringify(out)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});

import fc from 'fast-check';
import { sanitizeText, sanitizeUtf8 } from './text.sanitizer';

const FORBIDDEN =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const codePoints = (s: string) => [...s].length;

describe('sanitizeText', () => {
  it('strips controls, bidi, zero-width and line separators but keeps tab', () => {
    expect(sanitizeText('a\u0000b\nc\rd\te\u007f\u0085f')).toBe('abcd\tef');
    expect(sanitizeText('evil\u202Egnp.exe\u2066x\u2069\u200E\u200F\u061C')).toBe('evilgnp.exex');
    expect(sanitizeText('z\u200Bw\u200Cj\u200Dn\u2060b\uFEFF')).toBe('zwjnb');
    expect(sanitizeText('line\u2028para\u2029end')).toBe('lineparaend');
  });

  it('replaces lone surrogates and keeps valid pairs', () => {
    expect(sanitizeText('a\uD800b\uDC00c')).toBe('a\uFFFDb\uFFFDc');
    expect(sanitizeText('😀')).toBe('😀');
  });

  it('clamps by code points, never splitting a pair, ending with an ellipsis', () => {
    expect(sanitizeText('abcdef', 4)).toBe('abc…');
    expect(sanitizeText('abcd', 4)).toBe('abcd');
    expect(sanitizeText('😀😀😀😀😀', 3)).toBe('😀😀…');
    expect(sanitizeText('abcd\n\n\n', 4)).toBe('abcd');
    expect(sanitizeText('x'.repeat(1000))).toHaveLength(256);
  });

  it('returns an empty string for non-strings and non-positive limits', () => {
    for (const value of [undefined, null, 42, {}, ['a'], Symbol('s')]) expect(sanitizeText(value)).toBe('');
    expect(sanitizeText('abc', 0)).toBe('');
  });

  it('always yields well-formed, single-line, bounded, idempotent text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.integer({ min: 1, max: 64 }), (input, max) => {
        const out = sanitizeText(input, max);
        expect(out).not.toMatch(FORBIDDEN);
        expect(out).not.toMatch(LONE_SURROGATE);
        expect(codePoints(out)).toBeLessThanOrEqual(max);
        expect(sanitizeText(out, max)).toBe(out);
      }),
    );
  });

  it('leaves harmless text untouched', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 50 }), (input) => {
        fc.pre(!FORBIDDEN.test(input));
        expect(sanitizeText(input, 1000)).toBe(input);
      }),
    );
  });
});

describe('sanitizeUtf8', () => {
  it('decodes valid UTF-8 and replaces invalid bytes', () => {
    expect(sanitizeUtf8(Buffer.from('héllo 😀'))).toBe('héllo 😀');
    expect(sanitizeUtf8(Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82]))).toBe('a\uFFFDb\uFFFD');
    expect(sanitizeUtf8(Buffer.from([0xed, 0xa0, 0x80]))).not.toMatch(LONE_SURROGATE);
  });
});

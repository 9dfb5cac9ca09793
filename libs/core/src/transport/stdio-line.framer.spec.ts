import fc from 'fast-check';
import { FramedLine, LineFramer, serializeLine } from './stdio-line.framer';

const cutsArb = fc.array(fc.nat(), { maxLength: 10 });
const lines = (frames: FramedLine[]) => frames.map((f) => ('line' in f ? f.line : '<overflow>'));

const splitAt = (bytes: Buffer, cuts: number[]) => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let last = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(last, p));
    last = p;
  }
  chunks.push(bytes.subarray(last));
  return chunks;
};

describe('LineFramer', () => {
  it('splits on newlines, strips \\r and skips blank lines', () => {
    const framer = new LineFramer();
    expect(lines(framer.push(Buffer.from('a\r\n\n  \r\nb\nc')))).toEqual(['a', 'b']);
    expect(lines(framer.push(Buffer.from('d\n')))).toEqual(['cd']);
  });

  it('decodes a multi-byte character split across chunks', () => {
    const framer = new LineFramer();
    const bytes = Buffer.from('é😀\n');
    const out = [...bytes].flatMap((byte) => framer.push(Buffer.from([byte])));
    expect(lines(out)).toEqual(['é😀']);
  });

  it('replaces invalid UTF-8 with U+FFFD', () => {
    expect(lines(new LineFramer().push(Buffer.from([0x61, 0xff, 0x0a])))).toEqual(['a\uFFFD']);
  });

  it('discards an oversize line up to its newline and reports it once, in order', () => {
    const framer = new LineFramer({ maxLineBytes: 4 });
    expect(lines(framer.push(Buffer.from('ok\n12345')))).toEqual(['ok', '<overflow>']);
    expect(lines(framer.push(Buffer.from('6789')))).toEqual([]);
    expect(lines(framer.push(Buffer.from('0\nfine\n')))).toEqual(['fine']);
    expect(lines(framer.push(Buffer.from('12\n123456\nxy\n')))).toEqual(['12', '<overflow>', 'xy']);
  });

  it('accepts a line of exactly maxLineBytes', () => {
    const framer = new LineFramer({ maxLineBytes: 4 });
    expect(lines(framer.push(Buffer.from('12')))).toEqual([]);
    expect(lines(framer.push(Buffer.from('34\n')))).toEqual(['1234']);
  });

  it('yields the same lines however the stream is chunked', () => {
    const line = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
      .filter((s) => !s.includes('\n') && !s.endsWith('\r') && s.trim() !== '');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), cutsArb, fc.boolean(), (input, cuts, crlf) => {
        const bytes = Buffer.from(input.map((l) => l + (crlf ? '\r\n' : '\n')).join(''));
        const framer = new LineFramer();
        const out = splitAt(bytes, cuts).flatMap((chunk) => framer.push(chunk));
        expect(lines(out)).toEqual(input);
      }),
    );
  });

  it('reports each oversize line exactly once however the stream is chunked', () => {
    const line = fc.string({ unit: fc.constantFrom('a', 'é', '😀'), minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), cutsArb, (input, cuts) => {
        const bytes = Buffer.from(input.map((l) => `${l}\n`).join(''));
        const framer = new LineFramer({ maxLineBytes: 8 });
        const out = splitAt(bytes, cuts).flatMap((chunk) => framer.push(chunk));
        expect(lines(out)).toEqual(input.map((l) => (Buffer.byteLength(l) > 8 ? '<overflow>' : l)));
      }),
    );
  });
});

describe('serializeLine', () => {
  it('writes one JSON line ending in a single newline', () => {
    const text = serializeLine({ s: 'a\nb\r\u2028\u2029' });
    expect(text.endsWith('\n')).toBe(true);
    expect(text.indexOf('\n')).toBe(text.length - 1);
    expect(JSON.parse(text)).toEqual({ s: 'a\nb\r\u2028\u2029' });
    expect(lines(new LineFramer().push(Buffer.from(text)))).toEqual([text.slice(0, -1)]);
  });
});

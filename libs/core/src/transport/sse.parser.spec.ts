import fc from 'fast-check';
import { encodeSseComment, encodeSseEvent } from './sse.encoder';
import { SseParser } from './sse.parser';

describe('SseParser', () => {
  it('yields events, keeps the last retry and ignores comments', () => {
    const parser = new SseParser();
    expect(parser.feed(': hello\n\nretry: 3000\nid: 1\nevent: message\ndata: a\ndata:  b\n\n')).toEqual([
      { id: '1', event: 'message', data: 'a\n b' },
    ]);
    expect(parser.retry).toBe(3000);
    // Unlike a browser EventSource, each event carries only its own id; callers track the last one.
    expect(parser.feed('data: only\n\n')).toEqual([{ data: 'only' }]);
  });

  it('holds incomplete events until their blank line', () => {
    const parser = new SseParser();
    expect(parser.feed('data: par')).toEqual([]);
    expect(parser.feed('tial\n')).toEqual([]);
    expect(parser.feed('\n')).toEqual([{ data: 'partial' }]);
  });

  it('decodes UTF-8 split across byte chunks', () => {
    const parser = new SseParser();
    const bytes = Buffer.from('data: é😀\n\n');
    const events = [...bytes].flatMap((byte) => parser.feed(Uint8Array.of(byte)));
    expect(events).toEqual([{ data: 'é😀' }]);
  });

  it('throws once the buffer limit is exceeded', () => {
    const parser = new SseParser({ maxBufferSize: 8 });
    expect(() => parser.feed('data: 0123456789')).toThrow();
    expect(() => parser.feed('\n\n')).toThrow();
  });

  it('round-trips encoded events however the bytes are chunked', () => {
    const noBreak = (extra = '') => fc.string({ minLength: 1 }).filter((s) => !new RegExp(`[\\r\\n${extra}]`).test(s));
    const event = fc.record(
      { id: noBreak('\\0'), event: noBreak(), data: fc.string({ unit: 'grapheme' }) },
      { requiredKeys: ['data'] },
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 }), (events, cuts) => {
        const bytes = Buffer.from(encodeSseComment('keep-alive') + events.map(encodeSseEvent).join(''));
        const points = [0, ...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length];
        const parser = new SseParser();
        const parsed = points.slice(1).flatMap((end, i) => parser.feed(bytes.subarray(points[i], end)));
        const expected = events.map(({ id, event: name, data }) => ({
          ...(id !== undefined && { id }),
          ...(name !== undefined && { event: name }),
          data: data.replace(/\r\n|\r/g, '\n'),
        }));
        expect(parsed).toEqual(expected);
      }),
    );
  });
});

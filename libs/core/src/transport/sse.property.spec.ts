import { createParser, EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import { encodeSseComment, encodeSseEvent, SseOutgoingEvent } from './sse.encoder';
import { SseParser } from './sse.parser';

// Text of every UTF-8 width, with field-like fragments, control characters and the given extra units.
const text = (extra: string[]) =>
  fc.string({
    unit: fc.oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
      { weight: 2, arbitrary: fc.constantFrom(':', ' ', 'data:', 'id: x', '\t', '\u2028', 'é', '😀', ...extra) },
    ),
    maxLength: 30,
  });
// Line breaks of all three kinds, lone and doubled.
const BREAKS = ['\n', '\r', '\r\n', '\n\n', '\r\r', '\n\r'];
const data = text(BREAKS);
const id = text(['\0']).filter((s) => !/[\r\n\0]/.test(s));
// An empty event name means the default type, as if it were absent (the SSE standard), so it is never generated.
const name = text([]).filter((s) => s !== '' && !/[\r\n]/.test(s));
const event = fc.record({ id, event: name, data, retry: fc.nat() }, { requiredKeys: ['data'] });
const cuts = fc.array(fc.nat(), { maxLength: 20 });

/** What a client reads back: lines rejoined with `\n` whatever break the data had, and no retry (not an event field). */
const expected = ({ id: eventId, event: type, data: body }: SseOutgoingEvent) => ({
  ...(eventId !== undefined && { id: eventId }),
  ...(type !== undefined && { event: type }),
  data: body.replace(/\r\n|\r/g, '\n'),
});

function cut<T extends string | Uint8Array>(whole: T, at: number[]): T[] {
  const points = [0, ...at.map((c) => c % (whole.length + 1)).sort((a, b) => a - b), whole.length];
  return points.slice(1).map((end, i) => whole.slice(points[i], end) as T);
}

describe('SSE encoder and parsers (properties)', () => {
  it('round-trips any events through eventsource-parser, however the text is cut', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 5 }), data, cuts, (events, comment, at) => {
        const wire = encodeSseComment(comment) + events.map(encodeSseEvent).join('');
        const parsed: EventSourceMessage[] = [];
        const retries: number[] = [];
        const parser = createParser({ onEvent: (e) => parsed.push(e), onRetry: (r) => retries.push(r) });
        for (const chunk of cut(wire, at)) parser.feed(chunk);
        expect(parsed.map(({ id: i, event: e, data: d }) => expected({ id: i, event: e, data: d }))).toEqual(
          events.map(expected),
        );
        expect(retries).toEqual(events.flatMap((e) => (e.retry === undefined ? [] : [e.retry])));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips any events through SseParser, however the bytes are cut (inside UTF-8 characters too)', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 5 }), cuts, (events, at) => {
        const parser = new SseParser();
        const bytes = Buffer.from(events.map(encodeSseEvent).join(''));
        const parsed = cut(bytes, at).flatMap((chunk) => parser.feed(chunk));
        expect(parsed).toEqual(events.map(expected));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses, rather than encodes, an id or event name that could inject fields', () => {
    const withBreak = (extra: string) =>
      fc.tuple(text([]), fc.constantFrom(...extra), text([])).map(([before, bad, after]) => before + bad + after);
    fc.assert(
      fc.property(withBreak('\r\n\0'), withBreak('\r\n'), data, (badId, badName, body) => {
        expect(() => encodeSseEvent({ id: badId, data: body })).toThrow(/SSE id/);
        expect(() => encodeSseEvent({ event: badName, data: body })).toThrow(/SSE event name/);
      }),
      { numRuns: 100 },
    );
  });

  it('never lets a comment produce an event', () => {
    fc.assert(
      fc.property(data, cuts, (comment, at) => {
        const parser = new SseParser();
        const wire = encodeSseComment(comment);
        expect(cut(wire, at).flatMap((chunk) => parser.feed(chunk))).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});

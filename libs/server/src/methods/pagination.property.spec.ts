import fc from 'fast-check';
import { ErrorCode } from '@conduit-mcp/core';
import { ListCursors } from './list-cursor';
import { paginate } from './pagination';

const items = (length: number) => Array.from({ length }, (_, i) => i);

/** The cursor `paginate` hands out for `offset`: the next cursor of a first page of that size. */
function cursorFor(offset: number): string {
  const { nextCursor } = paginate(items(offset + 1), undefined, offset);
  if (nextCursor === undefined) throw new Error('no cursor');
  return nextCursor;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** One single-character edit of a cursor: a character replaced, inserted or removed. */
const edit = fc.oneof(
  fc.record({
    kind: fc.constant('replace' as const),
    at: fc.nat(),
    char: fc.constantFrom(...BASE64URL, '=', '.', '%'),
  }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), char: fc.constantFrom(...BASE64URL, '=', '.') }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
);
type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;

function apply(cursor: string, change: Edit): string {
  if (change.kind === 'insert') {
    const at = change.at % (cursor.length + 1);
    return cursor.slice(0, at) + change.char + cursor.slice(at);
  }
  const at = change.at % cursor.length;
  return cursor.slice(0, at) + (change.kind === 'replace' ? change.char : '') + cursor.slice(at + 1);
}

describe('list cursors (properties)', () => {
  it('decode(encode(offset)) === offset: a cursor resumes exactly where it was handed out', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 1, max: 50 }), (offset, pageSize) => {
        const list = items(offset + pageSize + 1);
        expect(paginate(list, cursorFor(offset), pageSize).page).toEqual(list.slice(offset, offset + pageSize));
      }),
      { numRuns: 100 },
    );
  });

  it('walks any list page by page, each item once and in order', () => {
    fc.assert(
      fc.property(fc.nat({ max: 300 }), fc.integer({ min: 1, max: 40 }), (length, pageSize) => {
        const list = items(length);
        const seen: number[] = [];
        let cursor: string | undefined;
        do {
          const { page, nextCursor } = paginate(list, cursor, pageSize);
          seen.push(...page);
          cursor = nextCursor;
        } while (cursor !== undefined);
        expect(seen).toEqual(list);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses with -32602 any value that is not a cursor it handed out', () => {
    const b64 = fc.string({ unit: fc.constantFrom(...BASE64URL), minLength: 1, maxLength: 40 });
    const lookalike = fc.tuple(b64, b64).map(([body, tag]) => `${body}.${tag}`);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue(), b64, lookalike), (value) => {
        expect(() => paginate(items(10), value, 2)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidParams }));
      }),
      { numRuns: 200 },
    );
  });

  // A plain encoded offset fails this property: editing one character yields another offset, or the same one.
  it('refuses with -32602 any single-character edit of a valid cursor', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5_000 }), edit, (offset, change) => {
        const cursor = cursorFor(offset);
        const edited = apply(cursor, change);
        fc.pre(edited !== cursor);
        expect(() => paginate(items(offset + 10), edited, 1)).toThrow(
          expect.objectContaining({ code: ErrorCode.InvalidParams }),
        );
      }),
      { numRuns: 300 },
    );
  });

  describe('ListCursors', () => {
    const key = Buffer.alloc(32, 7);
    const tools = new ListCursors('tools', () => key);

    it('decode(encode(offset)) === offset for any non-negative safe integer', () => {
      fc.assert(
        fc.property(fc.oneof(fc.nat(), fc.maxSafeNat()), (offset) => {
          expect(tools.decode(tools.encode(offset))).toBe(offset);
        }),
        { numRuns: 200 },
      );
    });

    it("refuses with -32602 another list's cursor, and a cursor made with another key", () => {
      const otherKey = new ListCursors('tools', () => Buffer.alloc(32, 8));
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 12 }), fc.nat(), (list, offset) => {
          fc.pre(list !== 'tools');
          const refused = expect.objectContaining({ code: ErrorCode.InvalidParams });
          expect(() => tools.decode(new ListCursors(list, () => key).encode(offset))).toThrow(refused);
          expect(() => tools.decode(otherKey.encode(offset))).toThrow(refused);
        }),
        { numRuns: 100 },
      );
    });
  });
});

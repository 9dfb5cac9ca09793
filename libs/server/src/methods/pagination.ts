import { invalidParams } from '@conduit-mcp/core';

/** One page of a list and the opaque cursor of the next, if any. */
export function paginate<T>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
): { page: T[]; nextCursor?: string } {
  const offset = cursor === undefined ? 0 : decodeCursor(cursor);
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return next < items.length ? { page, nextCursor: encodeCursor(next) } : { page };
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(cursor: unknown): number {
  if (typeof cursor === 'string' && cursor.length <= 64) {
    try {
      const { o } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown };
      if (Number.isSafeInteger(o) && (o as number) >= 0) return o as number;
    } catch {
      // fall through to the error below
    }
  }
  throw invalidParams('Invalid cursor');
}

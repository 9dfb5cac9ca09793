import { randomBytes } from 'node:crypto';
import { ListCursors } from './list-cursor';

/** Cursors for a caller that names no list and has no server key (a unit test): a random key, this process only. */
const STANDALONE_CURSORS = new ListCursors('list', () => randomBytes(32));

/**
 * One page of a list and the opaque cursor of the next, if any. `cursors` are the list's own (a server's `ListPages`
 * passes them); a cursor they did not issue is refused with -32602.
 */
export function paginate<T>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
  cursors: ListCursors = STANDALONE_CURSORS,
): { page: T[]; nextCursor?: string } {
  const offset = cursor === undefined ? 0 : cursors.decode(cursor);
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return next < items.length ? { page, nextCursor: cursors.encode(next) } : { page };
}

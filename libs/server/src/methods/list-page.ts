import { McpRequestContext } from '../context/mcp-request-context';
import { paginate } from '../dispatch/pagination';

interface Listable {
  definition: object;
  canActivate: (ctx: McpRequestContext) => Promise<boolean>;
}

/**
 * One page of a list result (`{ [key]: definitions, nextCursor? }`) holding only the entries whose guards let this
 * caller in (guards run concurrently; order is kept).
 */
export async function listPage(
  key: string,
  entries: Listable[],
  ctx: McpRequestContext,
  cursor: unknown,
  pageSize: number,
): Promise<Record<string, unknown>> {
  const allowed = await Promise.all(entries.map((entry) => entry.canActivate(ctx)));
  const { page, nextCursor } = paginate(entries.filter((_, index) => allowed[index]), cursor, pageSize);
  return { [key]: page.map((entry) => entry.definition), ...(nextCursor ? { nextCursor } : {}) };
}

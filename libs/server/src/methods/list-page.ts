import { McpRequestContext } from '../context/mcp-request-context';
import { paginate } from '../dispatch/pagination';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { DEFAULT_PAGE_SIZE } from '../mcp.constants';
import { cacheFields } from './cache-hint';

interface Listable {
  definition: object;
  canActivate: (ctx: McpRequestContext) => Promise<boolean>;
  cache: McpModuleOptions['cache'];
}

/**
 * One page of a list result (`{ [key]: definitions, nextCursor? }`) holding only the entries whose guards let this
 * caller in (guards run concurrently; order is kept); in the modern era with its caching hints.
 */
export async function listPage(
  key: string,
  entries: Listable[],
  ctx: McpRequestContext,
  cursor: unknown,
  options: McpModuleOptions,
): Promise<Record<string, unknown>> {
  const allowed = await Promise.all(entries.map((entry) => entry.canActivate(ctx)));
  const { page, nextCursor } = paginate(entries.filter((_, index) => allowed[index]), cursor, options.pageSize ?? DEFAULT_PAGE_SIZE);
  const result: Record<string, unknown> = { [key]: page.map((entry) => entry.definition) };
  if (nextCursor) result.nextCursor = nextCursor;
  return ctx.era === 'modern' ? { ...result, ...cacheFields(page, options.cache) } : result;
}

import { markConstant } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { paginate } from '../dispatch/pagination';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { DEFAULT_PAGE_SIZE } from '../mcp.constants';
import { ALWAYS_ALLOWED } from '../registry/registry.types';
import { cacheFields } from './cache-hint';

interface Listable {
  definition: object;
  canActivate: (ctx: McpRequestContext) => Promise<boolean>;
  cache: McpModuleOptions['cache'];
}

/** Most pages kept per list (distinct cursors × eras × guard outcomes); past it the cache starts over. */
const MAX_CACHED_PAGES = 256;

/**
 * The pages of one list (`tools`, `resources`, `resourceTemplates`, `prompts`): `{ [key]: definitions, nextCursor? }`
 * holding only the entries whose guards let this caller in (guards run concurrently; order is kept), in the modern
 * era with its caching hints. Guards still run on every request, but a page is built once per registry revision,
 * era, cursor and guard outcome, and marked constant, so its JSON is written once too.
 */
export class ListPages {
  private readonly pages = new Map<string, Record<string, unknown>>();
  private revision = -1;

  constructor(
    private readonly key: string,
    private readonly options: McpModuleOptions,
  ) {}

  async page(entries: readonly Listable[], revision: number, ctx: McpRequestContext, cursor: unknown): Promise<Record<string, unknown>> {
    const allowed = await this.allowed(entries, ctx);
    const cacheKey = cursor === undefined || typeof cursor === 'string' ? `${ctx.era}|${allowed ?? ''}|${cursor ?? ''}` : undefined;
    if (revision !== this.revision || this.pages.size >= MAX_CACHED_PAGES) {
      this.pages.clear();
      this.revision = revision;
    }
    const cached = cacheKey === undefined ? undefined : this.pages.get(cacheKey);
    if (cached) return cached;
    const visible = allowed === undefined ? entries : entries.filter((_, index) => allowed[index] === '1');
    const { page, nextCursor } = paginate(visible, cursor, this.options.pageSize ?? DEFAULT_PAGE_SIZE);
    let result: Record<string, unknown> = { [this.key]: page.map((entry) => entry.definition) };
    if (nextCursor) result.nextCursor = nextCursor;
    if (ctx.era === 'modern') result = { ...result, ...cacheFields(page, this.options.cache) };
    if (cacheKey !== undefined) this.pages.set(cacheKey, markConstant(result));
    return result;
  }

  // Which entries this caller may see, one '1' or '0' per entry; undefined when no entry has a guard.
  private async allowed(entries: readonly Listable[], ctx: McpRequestContext): Promise<string | undefined> {
    if (entries.every((entry) => entry.canActivate === ALWAYS_ALLOWED)) return undefined;
    const results = await Promise.all(entries.map((entry) => (entry.canActivate === ALWAYS_ALLOWED ? true : entry.canActivate(ctx))));
    return results.map((ok) => (ok ? '1' : '0')).join('');
  }
}

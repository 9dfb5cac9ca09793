import { markConstant } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { ListCursors } from './list-cursor';
import { paginate } from './pagination';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { DEFAULT_MAX_LIST_CACHE_BYTES, DEFAULT_PAGE_SIZE } from '../mcp.constants';
import { ALWAYS_ALLOWED } from '../registry/registry.types';
import { sealingKeyOf } from '../sealing-key';
import { cacheFields } from './cache-hint';
import { ListPageCache } from './list-page.cache';

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
  private readonly pages: ListPageCache;
  private guardedOf = new WeakMap<readonly Listable[], number[]>();
  private revision = -1;
  private readonly cursors: ListCursors;

  constructor(
    private readonly key: string,
    private readonly options: McpModuleOptions,
  ) {
    // Read at start-up, so that a bad requestState.secret stops the app rather than fails a request.
    const sealingKey = sealingKeyOf(options);
    this.cursors = new ListCursors(key, () => sealingKey);
    this.pages = new ListPageCache(options.maxListCacheBytes ?? DEFAULT_MAX_LIST_CACHE_BYTES);
  }

  async page(
    entries: readonly Listable[],
    revision: number,
    ctx: McpRequestContext,
    cursor: unknown,
  ): Promise<Record<string, unknown>> {
    if (revision !== this.revision || this.pages.size >= MAX_CACHED_PAGES) {
      this.pages.clear();
      this.guardedOf = new WeakMap();
      this.revision = revision;
    }
    const guarded = this.guarded(entries);
    const allowed = guarded.length ? await Promise.all(guarded.map((index) => entries[index].canActivate(ctx))) : [];
    const outcome = allowed.map((ok) => (ok ? '1' : '0')).join('');
    // Only a page served is cached, so a cursor found here was checked when its page was built.
    const cacheKey =
      cursor === undefined
        ? `${ctx.era}|${outcome}|`
        : typeof cursor === 'string'
          ? `${ctx.era}|${outcome}|c${cursor}`
          : undefined;
    const cached = cacheKey === undefined ? undefined : this.pages.get(cacheKey);
    if (cached) return cached;
    const refused = new Set(guarded.filter((_, n) => !allowed[n]));
    const visible = refused.size ? entries.filter((_, index) => !refused.has(index)) : entries;
    const { page, nextCursor } = paginate(visible, cursor, this.options.pageSize ?? DEFAULT_PAGE_SIZE, this.cursors);
    let result: Record<string, unknown> = { [this.key]: page.map((entry) => entry.definition) };
    if (nextCursor) result.nextCursor = nextCursor;
    if (ctx.era === 'modern') result = { ...result, ...cacheFields(page, this.options.cache) };
    if (cacheKey !== undefined) this.pages.set(cacheKey, markConstant(result));
    return result;
  }

  // The indexes of the entries that have guards (the others are always listed); kept per list of entries.
  private guarded(entries: readonly Listable[]): number[] {
    let indexes = this.guardedOf.get(entries);
    if (!indexes) {
      indexes = entries.flatMap((entry, index) => (entry.canActivate === ALWAYS_ALLOWED ? [] : [index]));
      this.guardedOf.set(entries, indexes);
    }
    return indexes;
  }
}

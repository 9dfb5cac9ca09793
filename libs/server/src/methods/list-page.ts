import { markConstant } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { ListCursors } from './list-cursor';
import { paginate } from './pagination';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { DEFAULT_MAX_LIST_CACHE_BYTES, DEFAULT_PAGE_SIZE } from '../mcp.constants';
import { ALWAYS_ALLOWED } from '../registry/registry.types';
import { sealingKeysOf } from '../sealing-key';
import { cacheFields } from './cache-hint';
import { ListPageCache } from './list-page.cache';

interface Listable {
  definition: object;
  canActivate: (ctx: McpRequestContext) => Promise<boolean>;
  cache: McpModuleOptions['cache'];
  scopes: readonly string[];
}

/** Who may see a scoped entry: the server's `McpScopePolicy`. */
interface ScopeCheck {
  allows(required: readonly string[], ctx: McpRequestContext): boolean;
}

/** Most pages kept per list (distinct cursors × eras × guard outcomes); past it the cache starts over. */
const MAX_CACHED_PAGES = 256;

/**
 * The pages of one list (`tools`, `resources`, `resourceTemplates`, `prompts`): `{ [key]: definitions, nextCursor? }`
 * holding only the entries whose scopes the caller holds and whose guards let it in (guards run concurrently, and
 * not for entries its scopes already hide; order is kept), in the modern era with its caching hints — `private`
 * whenever scopes or guards make the list depend on the caller. Scopes and guards are checked on every request, but
 * a page is built once per registry revision, era, cursor and outcome, and marked constant, so its JSON is written
 * once too.
 */
export class ListPages {
  private readonly pages: ListPageCache;
  private guardedOf = new WeakMap<readonly Listable[], number[]>();
  private scopedOf = new WeakMap<readonly Listable[], number[]>();
  private revision = -1;
  private readonly cursors: ListCursors;

  constructor(
    private readonly key: string,
    private readonly options: McpModuleOptions,
    private readonly scopes: ScopeCheck,
  ) {
    // Read at start-up, so that a bad requestState.secret stops the app rather than fails a request.
    const sealingKeys = sealingKeysOf(options);
    this.cursors = new ListCursors(key, () => sealingKeys);
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
      this.scopedOf = new WeakMap();
      this.revision = revision;
    }
    const scoped = this.indexes(this.scopedOf, entries, (entry) => entry.scopes.length > 0);
    const hidden = scoped.filter((index) => !this.scopes.allows(entries[index].scopes, ctx));
    const guardedAll = this.indexes(this.guardedOf, entries, (entry) => entry.canActivate !== ALWAYS_ALLOWED);
    const guarded = hidden.length ? guardedAll.filter((index) => !hidden.includes(index)) : guardedAll;
    const allowed = guarded.length ? await Promise.all(guarded.map((index) => entries[index].canActivate(ctx))) : [];
    // The caller's scopes and guards decide the page: callers with the same outcome share it.
    const outcome = `${hidden.join(',')}/${allowed.map((ok) => (ok ? '1' : '0')).join('')}`;
    // Only a page served is cached, so a cursor found here was checked when its page was built.
    const cacheKey =
      cursor === undefined
        ? `${ctx.era}|${outcome}|`
        : typeof cursor === 'string'
          ? `${ctx.era}|${outcome}|c${cursor}`
          : undefined;
    const cached = cacheKey === undefined ? undefined : this.pages.get(cacheKey);
    if (cached) return cached;
    const refused = new Set([...hidden, ...guarded.filter((_, n) => !allowed[n])]);
    const visible = refused.size ? entries.filter((_, index) => !refused.has(index)) : entries;
    const { page, nextCursor } = paginate(visible, cursor, this.options.pageSize ?? DEFAULT_PAGE_SIZE, this.cursors);
    let result: Record<string, unknown> = { [this.key]: page.map((entry) => entry.definition) };
    if (nextCursor) result.nextCursor = nextCursor;
    if (ctx.era === 'modern') {
      result = { ...result, ...cacheFields(page, this.options.cache) };
      // A list that depends on who asks must not be shared across authorization contexts.
      if (scoped.length || guardedAll.length) result.cacheScope = 'private';
    }
    if (cacheKey !== undefined) this.pages.set(cacheKey, markConstant(result));
    return result;
  }

  // The indexes of the entries that have scopes or guards (the others are always listed); kept per list of entries.
  private indexes(
    memo: WeakMap<readonly Listable[], number[]>,
    entries: readonly Listable[],
    applies: (entry: Listable) => boolean,
  ): number[] {
    let indexes = memo.get(entries);
    if (!indexes) {
      indexes = entries.flatMap((entry, index) => (applies(entry) ? [index] : []));
      memo.set(entries, indexes);
    }
    return indexes;
  }
}

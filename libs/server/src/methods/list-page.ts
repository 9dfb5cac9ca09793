import { markConstant } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { paginate } from './pagination';
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
  private guardedOf = new WeakMap<readonly Listable[], number[]>();
  private revision = -1;

  constructor(
    private readonly key: string,
    private readonly options: McpModuleOptions,
  ) {}

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
    const cacheKey =
      cursor === undefined || typeof cursor === 'string' ? `${ctx.era}|${outcome}|${cursor ?? ''}` : undefined;
    const cached = cacheKey === undefined ? undefined : this.pages.get(cacheKey);
    if (cached) return cached;
    const refused = new Set(guarded.filter((_, n) => !allowed[n]));
    const visible = refused.size ? entries.filter((_, index) => !refused.has(index)) : entries;
    const { page, nextCursor } = paginate(visible, cursor, this.options.pageSize ?? DEFAULT_PAGE_SIZE);
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

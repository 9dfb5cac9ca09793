import { McpRequestContext } from '../context/mcp-request-context';
import { ALWAYS_ALLOWED } from '../registry/registry.types';
import { ListPages } from './list-page';
import { ListPageCache } from './list-page.cache';

// 40 tools of about 10 kB each: 8 pages of 5, about 50 kB a page.
const entries = Array.from({ length: 40 }, (_, n) => ({
  definition: { name: `tool_${n}`, description: 'd'.repeat(10_000), inputSchema: { type: 'object' } },
  canActivate: ALWAYS_ALLOWED,
  cache: undefined,
  scopes: [] as string[],
}));
const legacy = { era: 'legacy' } as McpRequestContext;
// The scope check of a caller holding its `auth.scopes` (what McpScopesGuard does, without implied scopes).
const holdsScopes = {
  allows: (required: readonly string[], ctx: McpRequestContext) =>
    required.every((scope) => ctx.auth?.scopes.includes(scope)),
};

/** Every page of the list, following the cursors; `seen` collects each page object served. */
async function walk(pages: ListPages, seen: object[]): Promise<void> {
  let cursor: unknown = undefined;
  do {
    const page: Record<string, unknown> = await pages.page(entries, 1, legacy, cursor);
    seen.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}

describe('ListPages', () => {
  it('keeps at most maxListCacheBytes of pages: a list walked twice is served mostly from new pages', async () => {
    const pages = new ListPages(
      'tools',
      { name: 's', version: '1', pageSize: 5, maxListCacheBytes: 120_000 },
      holdsScopes,
    );
    const first: object[] = [];
    const second: object[] = [];
    await walk(pages, first);
    await walk(pages, second);
    expect(first).toHaveLength(8);
    // A page served from the cache is the very object served before; at most two pages of 50 kB fit in 120 kB.
    const reused = second.filter((page, n) => page === first[n]).length;
    expect(reused).toBeLessThanOrEqual(2);
  });

  it('reuses every page while the whole list fits (the default budget)', async () => {
    const pages = new ListPages('tools', { name: 's', version: '1', pageSize: 5 }, holdsScopes);
    const first: object[] = [];
    const second: object[] = [];
    await walk(pages, first);
    await walk(pages, second);
    expect(second.every((page, n) => page === first[n])).toBe(true);
  });
});

describe('ListPages with scoped entries', () => {
  const tool = (name: string, scopes: string[]) => ({
    definition: { name },
    canActivate: ALWAYS_ALLOWED,
    cache: { scope: 'public' as const },
    scopes,
  });
  const list = [tool('read', ['notes:read']), tool('write', ['notes:write']), tool('open', [])];
  const caller = (era: 'legacy' | 'modern', ...scopes: string[]) =>
    ({ era, auth: { scopes, claims: {} } }) as unknown as McpRequestContext;
  const names = (page: Record<string, unknown>) => (page.tools as Array<{ name: string }>).map((t) => t.name);

  it('lists only what the caller holds the scopes of, one page per outcome, shared by callers with it', async () => {
    const pages = new ListPages('tools', { name: 's', version: '1' }, holdsScopes);
    const reader = await pages.page(list, 1, caller('legacy', 'notes:read', 'openid'), undefined);
    const writer = await pages.page(list, 1, caller('legacy', 'notes:write'), undefined);
    const both = await pages.page(list, 1, caller('legacy', 'notes:read', 'notes:write'), undefined);
    const none = await pages.page(list, 1, caller('legacy'), undefined);
    expect([names(reader), names(writer), names(both), names(none)]).toEqual([
      ['read', 'open'],
      ['write', 'open'],
      ['read', 'write', 'open'],
      ['open'],
    ]);
    // Another caller holding notes:read (and scopes no entry names) gets the very page built for the first one.
    expect(await pages.page(list, 1, caller('legacy', 'notes:read', 'profile'), undefined)).toBe(reader);
  });

  it('marks a modern list private when it depends on the caller, whatever the entries hint', async () => {
    const pages = new ListPages('tools', { name: 's', version: '1' }, holdsScopes);
    expect(await pages.page(list, 1, caller('modern', 'notes:read'), undefined)).toMatchObject({
      cacheScope: 'private',
    });
    const open = [tool('open', [])];
    expect(await pages.page(open, 1, caller('modern'), undefined)).toMatchObject({ cacheScope: 'public' });
  });

  it('does not run the guards of an entry the caller lacks the scopes of', async () => {
    const probed: string[] = [];
    const guarded = (name: string, scopes: string[]) => ({
      ...tool(name, scopes),
      canActivate: async () => (probed.push(name), true),
    });
    const pages = new ListPages('tools', { name: 's', version: '1' }, holdsScopes);
    const page = await pages.page([guarded('a', ['admin']), guarded('b', [])], 1, caller('legacy'), undefined);
    expect(names(page)).toEqual(['b']);
    expect(probed).toEqual(['b']);
  });
});

describe('ListPageCache', () => {
  const page = (size: number) => ({ tools: ['x'.repeat(size)] });

  it('drops the oldest pages past its byte budget, and never keeps a page larger than the budget', () => {
    const cache = new ListPageCache(1_000);
    cache.set('a', page(400));
    cache.set('b', page(400));
    cache.set('c', page(400));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.bytes).toBeLessThanOrEqual(1_000);
    cache.set('huge', page(5_000));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('c')).toBeDefined();
    cache.clear();
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
  });
});

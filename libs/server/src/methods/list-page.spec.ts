import { McpRequestContext } from '../context/mcp-request-context';
import { ALWAYS_ALLOWED } from '../registry/registry.types';
import { ListPages } from './list-page';
import { ListPageCache } from './list-page.cache';

// 40 tools of about 10 kB each: 8 pages of 5, about 50 kB a page.
const entries = Array.from({ length: 40 }, (_, n) => ({
  definition: { name: `tool_${n}`, description: 'd'.repeat(10_000), inputSchema: { type: 'object' } },
  canActivate: ALWAYS_ALLOWED,
  cache: undefined,
}));
const legacy = { era: 'legacy' } as McpRequestContext;

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
    const pages = new ListPages('tools', { name: 's', version: '1', pageSize: 5, maxListCacheBytes: 120_000 });
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
    const pages = new ListPages('tools', { name: 's', version: '1', pageSize: 5 });
    const first: object[] = [];
    const second: object[] = [];
    await walk(pages, first);
    await walk(pages, second);
    expect(second.every((page, n) => page === first[n])).toBe(true);
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

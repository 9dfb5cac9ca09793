import { cacheFields } from './cache-hint';

describe('cache hints', () => {
  it('defaults to immediately stale and private', () => {
    expect(cacheFields([], undefined)).toEqual({ ttlMs: 0, cacheScope: 'private' });
  });

  it('takes the server defaults, the shortest ttl of the entries, and private when any entry is private', () => {
    const defaults = { ttlMs: 60_000, scope: 'public' as const };
    expect(cacheFields([{ cache: undefined }, { cache: { ttlMs: 5_000 } }], defaults)).toEqual({
      ttlMs: 5_000,
      cacheScope: 'public',
    });
    expect(cacheFields([{ cache: { scope: 'private' } }, { cache: undefined }], defaults)).toEqual({
      ttlMs: 60_000,
      cacheScope: 'private',
    });
    expect(cacheFields([{ cache: { ttlMs: -5 } }], defaults)).toEqual({ ttlMs: 0, cacheScope: 'public' });
  });
});

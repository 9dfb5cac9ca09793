import { jsonSizeUpTo } from '@conduit-mcp/core';

/**
 * The built pages of one list, by key, bounded in bytes: a page's JSON (written once, when first sent) lives as long
 * as the page is kept, and every cursor, era and guard outcome makes a page of its own. Past `maxBytes` the oldest
 * pages are dropped; a page larger than `maxBytes` is not kept at all (it is built again for each request).
 */
export class ListPageCache {
  private readonly pages = new Map<string, { page: Record<string, unknown>; bytes: number }>();
  private totalBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Pages kept. */
  get size(): number {
    return this.pages.size;
  }

  /** Estimated JSON size of the pages kept. */
  get bytes(): number {
    return this.totalBytes;
  }

  get(key: string): Record<string, unknown> | undefined {
    return this.pages.get(key)?.page;
  }

  /** Keeps `page` under `key` if it fits the budget, dropping the oldest pages to make room. */
  set(key: string, page: Record<string, unknown>): void {
    this.delete(key);
    // Measured once per page built (a cache miss), never on a hit.
    const bytes = jsonSizeUpTo(page, this.maxBytes);
    if (bytes > this.maxBytes) return;
    while (this.totalBytes + bytes > this.maxBytes) this.delete(this.pages.keys().next().value as string);
    this.pages.set(key, { page, bytes });
    this.totalBytes += bytes;
  }

  clear(): void {
    this.pages.clear();
    this.totalBytes = 0;
  }

  private delete(key: string): void {
    const entry = this.pages.get(key);
    if (!entry) return;
    this.pages.delete(key);
    this.totalBytes -= entry.bytes;
  }
}

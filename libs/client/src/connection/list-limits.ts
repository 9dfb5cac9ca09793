/** How much of a server's list one `list*()` call takes in, over all its pages. */
export interface ListLimits {
  /** Pages requested. */
  maxPages: number;
  /** Items kept. */
  maxItems: number;
  /** The items and cursors, measured as JSON (see `jsonSizeUpTo`). */
  maxBytes: number;
}

export const DEFAULT_LIST_LIMITS: ListLimits = { maxPages: 100, maxItems: 10_000, maxBytes: 32 * 1024 * 1024 };

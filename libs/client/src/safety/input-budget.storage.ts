import { TokenBucket } from '@conduit-mcp/core';
import { McpRateLimit } from '../interfaces/mcp-client-options.interface';

export const DEFAULT_INPUT_RATE_LIMIT: McpRateLimit = { rate: 10, burst: 20 };

/** Most budgets a memory storage keeps; past it the longest-unused one is forgotten (it starts full again). */
const MAX_BUDGETS = 10_000;

/**
 * Where the input budget (`InputBudgetGuard`) keeps its token buckets, one per key (a server id by default). Provide
 * your own under this token to share budgets between processes.
 */
export interface McpInputBudgetStorage {
  /** Spends one question of `key`'s budget under `limit`; false when it is exhausted. */
  take(key: string, limit: McpRateLimit): boolean | Promise<boolean>;
}

export const McpInputBudgetStorage = Symbol('McpInputBudgetStorage');

/** The default storage: token buckets in this process's memory. */
export class MemoryInputBudgetStorage implements McpInputBudgetStorage {
  private readonly buckets = new Map<string, TokenBucket>();

  /** @param now clock in milliseconds, for tests; defaults to the bucket's own */
  constructor(private readonly now?: () => number) {}

  take(key: string, limit: McpRateLimit): boolean {
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
    } else {
      bucket = new TokenBucket({ ...limit, now: this.now });
      if (this.buckets.size >= MAX_BUDGETS) this.buckets.delete(this.buckets.keys().next().value as string);
    }
    this.buckets.set(key, bucket);
    return bucket.tryTake();
  }
}

import { TokenBucket } from '@conduit-mcp/core';
import { McpRateLimit } from '../interfaces/mcp-client-options.interface';

export const DEFAULT_INPUT_RATE_LIMIT: McpRateLimit = { rate: 10, burst: 20 };

/** Rate limit of the questions (server requests or MRTR inputs) each server may ask: a token bucket per server id. */
export class InputBudget {
  private readonly buckets = new Map<string, TokenBucket>();

  /** @param now clock in milliseconds, for tests; defaults to the bucket's own */
  constructor(
    private readonly limit: McpRateLimit = DEFAULT_INPUT_RATE_LIMIT,
    private readonly now?: () => number,
  ) {}

  /** Spends one question of `serverId`'s budget; false when it is exhausted. */
  tryTake(serverId: string): boolean {
    let bucket = this.buckets.get(serverId);
    if (!bucket) {
      bucket = new TokenBucket({ ...this.limit, now: this.now });
      this.buckets.set(serverId, bucket);
    }
    return bucket.tryTake();
  }
}

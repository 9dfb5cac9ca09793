import { TokenBucket } from '@conduit-mcp/core';
import { McpRateLimit } from '../interfaces/mcp-client-options.interface';

export const DEFAULT_LOG_RATE_LIMIT: McpRateLimit = { rate: 50, burst: 100 };

/** Rate limit of one connection's server log entries (`notifications/message`); the rest are dropped. */
export class LogLimiter {
  private readonly bucket: TokenBucket;
  private droppedCount = 0;

  /** @param now clock in milliseconds, for tests; defaults to the bucket's own */
  constructor(limit: McpRateLimit = DEFAULT_LOG_RATE_LIMIT, now?: () => number) {
    this.bucket = new TokenBucket({ ...limit, now });
  }

  /** Whether the next log entry may pass; a refused one counts as dropped. */
  allow(): boolean {
    if (this.bucket.tryTake()) return true;
    this.droppedCount++;
    return false;
  }

  /** Log entries refused so far. */
  get dropped(): number {
    return this.droppedCount;
  }
}

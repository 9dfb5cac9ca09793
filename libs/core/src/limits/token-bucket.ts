/** Options of a {@link TokenBucket}. */
export interface TokenBucketOptions {
  /** Tokens added per second. */
  rate: number;
  /** Most tokens the bucket holds; it starts full. */
  burst: number;
  /** Clock in milliseconds; defaults to `performance.now()`. */
  now?: () => number;
}

/** Rate limiting with bursts: each action takes tokens, which refill continuously at `rate` per second. */
export class TokenBucket {
  private readonly rate: number;
  private readonly burst: number;
  private readonly now: () => number;
  private tokens: number;
  private last: number;

  constructor({ rate, burst, now = () => performance.now() }: TokenBucketOptions) {
    if (!(rate >= 0) || !Number.isFinite(rate)) throw new RangeError('rate must be a finite number >= 0');
    if (!(burst > 0) || !Number.isFinite(burst)) throw new RangeError('burst must be a finite number > 0');
    this.rate = rate;
    this.burst = burst;
    this.now = now;
    this.tokens = burst;
    this.last = now();
  }

  /** Takes `n` tokens if that many are available; returns whether it did. */
  tryTake(n = 1): boolean {
    this.refill();
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }

  /** Tokens available now (may be fractional). */
  available(): number {
    this.refill();
    return this.tokens;
  }

  private refill(): void {
    const now = this.now();
    // A clock that steps backwards must not drain or overfill the bucket.
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.rate) / 1000);
  }
}

/** How a lost SSE stream is reconnected. */
export interface ReconnectOptions {
  /** First delay when the server sent no `retry:`. Default 1 000 ms. */
  initialDelayMs: number;
  /** Longest delay. Default 30 000 ms. */
  maxDelayMs: number;
  /** Each consecutive failure multiplies the delay by this. Default 1.5. */
  growFactor: number;
  /** Consecutive failed attempts before giving up. Default 5. */
  maxRetries: number;
}

export const DEFAULT_RECONNECT: ReconnectOptions = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  growFactor: 1.5,
  maxRetries: 5,
};

/**
 * The wait before reconnection attempt `failures + 1`: the server's `retry:` (else `initialDelayMs`), grown by
 * `growFactor` per consecutive failure, capped at `maxDelayMs`.
 */
export function reconnectDelay(options: ReconnectOptions, failures: number, serverRetryMs?: number): number {
  const base = serverRetryMs ?? options.initialDelayMs;
  return Math.min(base * options.growFactor ** failures, options.maxDelayMs);
}

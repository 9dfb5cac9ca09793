/** How a lost SSE stream is reconnected. */
export interface ReconnectOptions {
  /** First delay when the server sent no `retry:`. Default 1 000 ms. */
  initialDelayMs: number;
  /** The server's `retry:` is raised to at least this. Default 100 ms. */
  minDelayMs: number;
  /** Longest delay; the server's `retry:` is lowered to at most this. Default 30 000 ms. */
  maxDelayMs: number;
  /** Each consecutive failure multiplies the delay by this. Default 1.5. */
  growFactor: number;
  /** Each delay is lengthened by up to this fraction of itself, at random, so clients do not come back in step. Default 0.5. */
  jitter: number;
  /**
   * Consecutive failed attempts before giving up. An attempt fails when the server refuses it, or when the connection
   * ends before it delivered a message and before `stableAfterMs`. Default 5.
   */
  maxRetries: number;
  /** A connection open this long counts as a success even if it delivered no message. Default 10 000 ms. */
  stableAfterMs: number;
}

export const DEFAULT_RECONNECT: ReconnectOptions = {
  initialDelayMs: 1_000,
  minDelayMs: 100,
  maxDelayMs: 30_000,
  growFactor: 1.5,
  jitter: 0.5,
  maxRetries: 5,
  stableAfterMs: 10_000,
};

/**
 * The wait before reconnection attempt `failures + 1`: the server's `retry:` clamped to [`minDelayMs`, `maxDelayMs`]
 * (else `initialDelayMs`), grown by `growFactor` per consecutive failure, lengthened by up to `jitter` of itself, at
 * most `maxDelayMs`. Never shorter than the clamped `retry:`, which the specification asks clients to wait.
 * `random` (0 to 1) is injectable for tests.
 */
export function reconnectDelay(
  options: ReconnectOptions,
  failures: number,
  serverRetryMs?: number,
  random: () => number = Math.random,
): number {
  const base =
    serverRetryMs === undefined || Number.isNaN(serverRetryMs)
      ? options.initialDelayMs
      : Math.min(Math.max(serverRetryMs, options.minDelayMs), options.maxDelayMs);
  const grown = base * options.growFactor ** failures;
  return Math.min(grown * (1 + options.jitter * random()), options.maxDelayMs);
}

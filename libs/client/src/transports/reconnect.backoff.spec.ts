import { DEFAULT_RECONNECT, reconnectDelay } from './reconnect.backoff';

const low = () => 0;
const high = () => 1;

describe('reconnectDelay', () => {
  it('grows from initialDelayMs by growFactor per failure, up to maxDelayMs (no jitter drawn)', () => {
    expect([0, 1, 2, 20].map((failures) => reconnectDelay(DEFAULT_RECONNECT, failures, undefined, low))).toEqual([
      1_000, 1_500, 2_250, 30_000,
    ]);
  });

  it('lengthens each delay by up to jitter of itself, never past maxDelayMs', () => {
    expect(reconnectDelay(DEFAULT_RECONNECT, 0, undefined, high)).toBe(1_500);
    expect(reconnectDelay(DEFAULT_RECONNECT, 1, undefined, () => 0.5)).toBe(1_875);
    expect(reconnectDelay(DEFAULT_RECONNECT, 20, undefined, high)).toBe(30_000);
    expect(reconnectDelay({ ...DEFAULT_RECONNECT, jitter: 0 }, 0, undefined, high)).toBe(1_000);
  });

  it('starts from the server’s retry:, clamped to [minDelayMs, maxDelayMs]', () => {
    expect(reconnectDelay(DEFAULT_RECONNECT, 0, 200, low)).toBe(200);
    expect(reconnectDelay(DEFAULT_RECONNECT, 1, 200, low)).toBe(300);
    expect(reconnectDelay(DEFAULT_RECONNECT, 0, 600_000, high)).toBe(30_000);
    // retry: 0 (or 1) from the server would have the client reconnect at once, forever.
    expect(reconnectDelay(DEFAULT_RECONNECT, 0, 0, low)).toBe(100);
    expect(reconnectDelay(DEFAULT_RECONNECT, 0, 1, high)).toBe(150);
    expect(reconnectDelay(DEFAULT_RECONNECT, 3, 0, low)).toBe(337.5);
    expect(reconnectDelay(DEFAULT_RECONNECT, 0, Number.NaN, low)).toBe(1_000);
  });

  it('never waits less than the clamped retry: the specification asks for, whatever the draw', () => {
    for (const retry of [0, 50, 100, 500, 29_999, 30_000, 10 ** 12])
      for (const failures of [0, 1, 5])
        for (const draw of [0, 0.3, 0.999, 1])
          expect(reconnectDelay(DEFAULT_RECONNECT, failures, retry, () => draw)).toBeGreaterThanOrEqual(
            Math.min(Math.max(retry, 100), 30_000),
          );
  });
});

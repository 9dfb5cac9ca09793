import { DEFAULT_RECONNECT, reconnectDelay } from './reconnect.backoff';

describe('reconnectDelay', () => {
  it('grows from initialDelayMs by growFactor per failure, up to maxDelayMs', () => {
    expect([0, 1, 2, 20].map((failures) => reconnectDelay(DEFAULT_RECONNECT, failures))).toEqual([
      1_000, 1_500, 2_250, 30_000,
    ]);
  });

  it('starts from the server’s retry: when it sent one, still capped', () => {
    expect(reconnectDelay(DEFAULT_RECONNECT, 0, 200)).toBe(200);
    expect(reconnectDelay(DEFAULT_RECONNECT, 1, 200)).toBe(300);
    expect(reconnectDelay(DEFAULT_RECONNECT, 0, 600_000)).toBe(30_000);
  });
});

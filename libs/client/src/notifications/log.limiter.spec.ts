import { DEFAULT_LOG_RATE_LIMIT, LogLimiter } from './log.limiter';

describe('LogLimiter', () => {
  it('defaults to 50/s with bursts of 100', () => {
    expect(DEFAULT_LOG_RATE_LIMIT).toEqual({ rate: 50, burst: 100 });
  });

  it('allows a burst of exactly 100, drops the rest and counts them, then refills at 50/s', () => {
    let now = 0;
    const limiter = new LogLimiter(undefined, () => now);
    for (let i = 0; i < 100; i++) expect(limiter.allow()).toBe(true);
    expect(limiter.allow()).toBe(false);
    expect(limiter.allow()).toBe(false);
    expect(limiter.dropped).toBe(2);
    now += 19;
    expect(limiter.allow()).toBe(false);
    now += 1;
    expect(limiter.allow()).toBe(true);
    expect(limiter.dropped).toBe(3);
    now += 10_000;
    for (let i = 0; i < 100; i++) expect(limiter.allow()).toBe(true);
    expect(limiter.allow()).toBe(false);
  });

  it('takes its limits from the options', () => {
    const limiter = new LogLimiter({ rate: 1, burst: 3 }, () => 0);
    expect([limiter.allow(), limiter.allow(), limiter.allow(), limiter.allow()]).toEqual([true, true, true, false]);
  });
});

import { TokenBucket } from './token-bucket';

describe('TokenBucket', () => {
  const clock = () => {
    let t = 1_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('starts full and allows a burst, then refuses', () => {
    const c = clock();
    const bucket = new TokenBucket({ rate: 10, burst: 3, now: c.now });
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, true, false]);
    expect(bucket.available()).toBe(0);
  });

  it('refills at the rate and never beyond the burst', () => {
    const c = clock();
    const bucket = new TokenBucket({ rate: 10, burst: 5, now: c.now });
    expect(bucket.tryTake(5)).toBe(true);
    c.advance(250);
    expect(bucket.available()).toBeCloseTo(2.5);
    expect(bucket.tryTake(3)).toBe(false);
    expect(bucket.tryTake(2)).toBe(true);
    c.advance(60_000);
    expect(bucket.available()).toBe(5);
  });

  it('refuses more than the burst at once', () => {
    expect(new TokenBucket({ rate: 100, burst: 2 }).tryTake(3)).toBe(false);
  });

  it('ignores a clock that goes backwards', () => {
    const c = clock();
    const bucket = new TokenBucket({ rate: 1, burst: 2, now: c.now });
    bucket.tryTake(2);
    c.advance(-10_000);
    expect(bucket.available()).toBe(0);
    c.advance(1_000);
    expect(bucket.available()).toBe(1);
  });

  it('uses a real clock by default', async () => {
    const bucket = new TokenBucket({ rate: 1000, burst: 1 });
    expect(bucket.tryTake()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(bucket.tryTake()).toBe(true);
  });

  it('rejects invalid options', () => {
    expect(() => new TokenBucket({ rate: -1, burst: 1 })).toThrow(RangeError);
    expect(() => new TokenBucket({ rate: 1, burst: 0 })).toThrow(RangeError);
    expect(() => new TokenBucket({ rate: NaN, burst: 1 })).toThrow(RangeError);
  });
});

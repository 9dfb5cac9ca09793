import { DEFAULT_INPUT_RATE_LIMIT, MemoryInputBudgetStorage } from './input-budget.storage';

describe('MemoryInputBudgetStorage', () => {
  it('defaults to 10/s with bursts of 20', () => {
    expect(DEFAULT_INPUT_RATE_LIMIT).toEqual({ rate: 10, burst: 20 });
  });

  it('allows a burst of exactly 20, refuses the 21st, then refills at 10/s', () => {
    let now = 0;
    const storage = new MemoryInputBudgetStorage(() => now);
    for (let i = 0; i < 20; i++) expect(storage.take('fs', DEFAULT_INPUT_RATE_LIMIT)).toBe(true);
    expect(storage.take('fs', DEFAULT_INPUT_RATE_LIMIT)).toBe(false);
    now += 99;
    expect(storage.take('fs', DEFAULT_INPUT_RATE_LIMIT)).toBe(false);
    now += 1;
    expect(storage.take('fs', DEFAULT_INPUT_RATE_LIMIT)).toBe(true);
    expect(storage.take('fs', DEFAULT_INPUT_RATE_LIMIT)).toBe(false);
  });

  it('keeps one bucket per key', () => {
    const storage = new MemoryInputBudgetStorage(() => 0);
    const limit = { rate: 1, burst: 2 };
    const take = (key: string) => storage.take(key, limit);
    expect([take('a'), take('a'), take('a')]).toEqual([true, true, false]);
    expect([take('b'), take('b'), take('b')]).toEqual([true, true, false]);
  });

  it('keeps at most 10 000 buckets, forgetting the longest unused first', () => {
    const storage = new MemoryInputBudgetStorage(() => 0);
    const limit = { rate: 0, burst: 1 };
    expect(storage.take('first', limit)).toBe(true);
    for (let i = 0; i < 10_000; i++) storage.take(`key-${i}`, limit);
    // `first` was forgotten: its budget is full again; the newest key's is still spent.
    expect(storage.take('first', limit)).toBe(true);
    expect(storage.take('key-9999', limit)).toBe(false);
  });
});

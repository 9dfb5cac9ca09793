import { DEFAULT_INPUT_RATE_LIMIT, InputBudget } from './input.budget';

describe('InputBudget', () => {
  it('defaults to 10/s with bursts of 20', () => {
    expect(DEFAULT_INPUT_RATE_LIMIT).toEqual({ rate: 10, burst: 20 });
  });

  it('allows a burst of exactly 20, refuses the 21st, then refills at 10/s', () => {
    let now = 0;
    const budget = new InputBudget(undefined, () => now);
    for (let i = 0; i < 20; i++) expect(budget.tryTake('fs')).toBe(true);
    expect(budget.tryTake('fs')).toBe(false);
    now += 99;
    expect(budget.tryTake('fs')).toBe(false);
    now += 1;
    expect(budget.tryTake('fs')).toBe(true);
    expect(budget.tryTake('fs')).toBe(false);
  });

  it('keeps one bucket per server', () => {
    const now = 0;
    const budget = new InputBudget({ rate: 1, burst: 2 }, () => now);
    expect([budget.tryTake('a'), budget.tryTake('a'), budget.tryTake('a')]).toEqual([true, true, false]);
    expect([budget.tryTake('b'), budget.tryTake('b'), budget.tryTake('b')]).toEqual([true, true, false]);
  });
});

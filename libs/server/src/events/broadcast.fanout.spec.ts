import { BroadcastFanOut } from './broadcast.fanout';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('BroadcastFanOut', () => {
  it('delivers a small broadcast at once, in the order of its targets', () => {
    const fanOut = new BroadcastFanOut();
    const seen: number[] = [];
    fanOut.add([1, 2, 3], (n) => (seen.push(n), true));
    expect(seen).toEqual([1, 2, 3]);
    expect(fanOut.pending).toBe(0);
  });

  it('delivers a large broadcast in slices that yield to the event loop, every target once', async () => {
    const fanOut = new BroadcastFanOut();
    const targets = Array.from({ length: 2_000 }, (_, i) => i);
    const seen: number[] = [];
    fanOut.add(targets, (n) => (seen.push(n), true));
    const firstSlice = seen.length;
    expect(firstSlice).toBeGreaterThan(0);
    expect(firstSlice).toBeLessThan(targets.length);
    let turns = 0;
    while (fanOut.pending) {
      await turn();
      turns++;
    }
    expect(turns).toBeGreaterThan(1);
    expect(seen).toEqual(targets);
  });

  it('keeps the order of broadcasts for every target, also when a later one is added while an earlier one runs', async () => {
    const fanOut = new BroadcastFanOut();
    const targets = Array.from({ length: 1_500 }, (_, i) => i);
    const got = new Map<number, string[]>();
    const deliver = (what: string) => (n: number) => (got.set(n, [...(got.get(n) ?? []), what]), true);
    fanOut.add(targets, deliver('first'));
    fanOut.add(targets, deliver('second'));
    await turn();
    fanOut.add(targets, deliver('third'));
    while (fanOut.pending) await turn();
    for (const n of targets) expect(got.get(n)).toEqual(['first', 'second', 'third']);
  });

  it('passes over many uninterested targets in a slice: they cost less than deliveries', () => {
    const fanOut = new BroadcastFanOut();
    const seen: number[] = [];
    fanOut.add(
      Array.from({ length: 1_500 }, (_, i) => i),
      (n) => n % 1_000 === 0 && (seen.push(n), true),
    );
    expect(seen).toEqual([0, 1_000]);
    expect(fanOut.pending).toBe(0);
  });

  it('goes on with the other targets when a delivery throws', () => {
    const fanOut = new BroadcastFanOut();
    const seen: number[] = [];
    fanOut.add([1, 2, 3], (n) => {
      if (n === 2) throw new Error('broken sink');
      seen.push(n);
      return true;
    });
    expect(seen).toEqual([1, 3]);
  });
});

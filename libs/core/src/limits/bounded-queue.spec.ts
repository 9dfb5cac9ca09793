import fc from 'fast-check';
import { BoundedQueue } from './bounded-queue';

describe('BoundedQueue', () => {
  it('is FIFO and refuses items when full', () => {
    const dropped: number[] = [];
    const queue = new BoundedQueue<number>(2, (item) => dropped.push(item));
    expect([queue.push(1), queue.push(2), queue.push(3)]).toEqual([true, true, false]);
    expect(queue.size).toBe(2);
    expect(queue.dropped).toBe(1);
    expect(dropped).toEqual([3]);
    expect(queue.shift()).toBe(1);
    expect(queue.push(4)).toBe(true);
    expect([queue.shift(), queue.shift(), queue.shift()]).toEqual([2, 4, undefined]);
  });

  it('clears items but keeps the dropped count', () => {
    const queue = new BoundedQueue<string>(1);
    queue.push('a');
    queue.push('b');
    queue.clear();
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeUndefined();
    expect(queue.dropped).toBe(1);
    expect(queue.push('c')).toBe(true);
    expect(queue.shift()).toBe('c');
  });

  it('behaves like a capped array under any sequence of operations', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(fc.option(fc.integer(), { nil: undefined })), (cap, ops) => {
        const queue = new BoundedQueue<number>(cap);
        const model: number[] = [];
        let dropped = 0;
        for (const op of ops) {
          if (op === undefined) {
            expect(queue.shift()).toBe(model.shift());
          } else {
            const accepted = model.length < cap;
            if (accepted) model.push(op);
            else dropped++;
            expect(queue.push(op)).toBe(accepted);
          }
          expect(queue.size).toBe(model.length);
        }
        expect(queue.dropped).toBe(dropped);
      }),
    );
  });

  it('rejects a capacity below one', () => {
    expect(() => new BoundedQueue(0)).toThrow(RangeError);
  });
});

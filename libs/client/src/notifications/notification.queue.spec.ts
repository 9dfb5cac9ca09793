import { NOTIFICATION_QUEUE_CAPACITY, NOTIFICATION_QUEUE_MAX_BYTES, NotificationQueue } from './notification.queue';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('NotificationQueue', () => {
  it('handles items one at a time, in arrival order, never on the producer stack', async () => {
    const events: string[] = [];
    const queue = new NotificationQueue<number>({
      consume: async (n) => {
        events.push(`start ${n}`);
        await new Promise((r) => setTimeout(r, 3 - n));
        events.push(`end ${n}`);
      },
      onError: () => undefined,
    });
    queue.push(1);
    queue.push(2);
    events.push('pushed');
    expect(queue.size).toBe(2);
    await queue.drain();
    expect(events).toEqual(['pushed', 'start 1', 'end 1', 'start 2', 'end 2']);
    expect(queue.size).toBe(0);
  });

  it('accepts 1 000 waiting items and drops the 1 001st, counting it', async () => {
    expect(NOTIFICATION_QUEUE_CAPACITY).toBe(1000);
    const seen: number[] = [];
    const queue = new NotificationQueue<number>({ consume: (n) => void seen.push(n), onError: () => undefined });
    for (let i = 0; i < 1000; i++) expect(queue.push(i)).toBe(true);
    expect(queue.push(1000)).toBe(false);
    expect(queue.dropped).toBe(1);
    await queue.drain();
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(queue.push(2000)).toBe(true);
    await queue.drain();
    expect(seen.at(-1)).toBe(2000);
    expect(queue.dropped).toBe(1);
  });

  it('counts only waiting items against the capacity, not the one being handled', async () => {
    const gate = deferred();
    const queue = new NotificationQueue<number>({ consume: () => gate.promise, onError: () => undefined, capacity: 2 });
    queue.push(1);
    await Promise.resolve();
    expect(queue.size).toBe(0);
    expect([queue.push(2), queue.push(3), queue.push(4)]).toEqual([true, true, false]);
    gate.resolve();
    await queue.drain();
    expect(queue.dropped).toBe(1);
  });

  it('drops items past maxBytes of waiting ones (8 MiB by default), counting them, and frees room as it goes', async () => {
    expect(NOTIFICATION_QUEUE_MAX_BYTES).toBe(8 * 1024 * 1024);
    const gate = deferred();
    const seen: number[] = [];
    const rooms: number[] = [];
    const queue = new NotificationQueue<number>({
      consume: async (n) => {
        await gate.promise;
        seen.push(n);
      },
      onError: () => undefined,
      maxBytes: 100,
      sizeOf: (n, room) => (rooms.push(room), n),
    });
    expect([queue.push(40), queue.push(40), queue.push(30), queue.push(20)]).toEqual([true, true, false, true]);
    expect(queue.bytes).toBe(100);
    expect(queue.dropped).toBe(1);
    // The measure is told the room left, so a large item need not be measured in full.
    expect(rooms).toEqual([100, 60, 20, 20]);
    gate.resolve();
    await queue.drain();
    expect(seen).toEqual([40, 40, 20]);
    expect(queue.bytes).toBe(0);
    expect(queue.push(100)).toBe(true);
    await queue.drain();
  });

  it('reports a consumer that throws or rejects and goes on', async () => {
    const seen: number[] = [];
    const errors: [unknown, number][] = [];
    const queue = new NotificationQueue<number>({
      consume: async (n) => {
        if (n === 1) throw new Error('sync-ish');
        if (n === 2) return Promise.reject(new Error('rejected'));
        seen.push(n);
      },
      onError: (error, item) => errors.push([error, item]),
    });
    const syncThrower = new NotificationQueue<number>({
      consume: () => {
        throw new Error('sync');
      },
      onError: (error, item) => errors.push([error, item]),
    });
    [0, 1, 2, 3].forEach((n) => queue.push(n));
    syncThrower.push(9);
    await Promise.all([queue.drain(), syncThrower.drain()]);
    expect(seen).toEqual([0, 3]);
    expect(errors.map(([error, item]) => [(error as Error).message, item])).toEqual([
      ['sync', 9],
      ['sync-ish', 1],
      ['rejected', 2],
    ]);
  });

  it('survives an onError that throws', async () => {
    const seen: number[] = [];
    const queue = new NotificationQueue<number>({
      consume: (n) => {
        if (n === 0) throw new Error('boom');
        seen.push(n);
      },
      onError: () => {
        throw new Error('reporter broke');
      },
    });
    queue.push(0);
    queue.push(1);
    await queue.drain();
    expect(seen).toEqual([1]);
  });

  it('drain resolves at once when idle, and waits for items pushed while handling', async () => {
    const seen: number[] = [];
    const queue = new NotificationQueue<number>({
      consume: (n) => {
        seen.push(n);
        if (n < 3) queue.push(n + 1);
      },
      onError: () => undefined,
    });
    await queue.drain();
    queue.push(0);
    await queue.drain();
    expect(seen).toEqual([0, 1, 2, 3]);
  });

  it('stops accepting when closed but handles what was queued', async () => {
    const seen: string[] = [];
    const queue = new NotificationQueue<string>({ consume: (s) => void seen.push(s), onError: () => undefined });
    queue.push('a');
    queue.close();
    expect(queue.push('b')).toBe(false);
    await queue.drain();
    expect(seen).toEqual(['a']);
    expect(queue.dropped).toBe(0);
  });
});

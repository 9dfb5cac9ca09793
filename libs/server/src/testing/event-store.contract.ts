/// <reference types="jest" />
// A Jest suite to run in a spec: it uses the Jest globals of the run that imports it.
import { JsonRpcMessage } from '@conduit-mcp/core';
import { EventStore } from '../transports/http/event.store';

/** An implementation under test: its name, and a factory of a fresh, empty store keeping at most `maxEventsPerStream`. */
export type EventStoreCase = [
  name: string,
  make: (bounds: { maxEventsPerStream: number }) => EventStore | Promise<EventStore>,
];

const message = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

/**
 * The contract every {@link EventStore} meets, as a Jest suite: run it in a spec of your own over your
 * implementation(s). Each case's factory returns a fresh, empty store.
 *
 * @example
 * eventStoreContract([['RedisEventStore', ({ maxEventsPerStream }) => new RedisEventStore(redis, { prefix, maxEventsPerStream })]]);
 */
export function eventStoreContract(cases: EventStoreCase[]): void {
  describe.each(cases)('EventStore contract: %s', (_name, make) => {
    let store: EventStore;

    beforeEach(async () => {
      store = await make({ maxEventsPerStream: 5 });
    });

    it('gives every event an id of its own and replays the events after an id, in order', async () => {
      const first = await store.append('s1', 'a', message(1));
      const second = await store.append('s1', 'a', message(2));
      const third = await store.append('s1', 'a', message(3));
      expect(new Set([first, second, third]).size).toBe(3);
      expect(await store.replayAfter('s1', first)).toEqual({
        streamId: 'a',
        events: [
          { id: second, message: message(2) },
          { id: third, message: message(3) },
        ],
        ended: false,
      });
      expect((await store.replayAfter('s1', third))?.events).toEqual([]);
    });

    it('replays after a priming mark, which is never replayed itself', async () => {
      const primed = await store.append('s1', 'a');
      const id = await store.append('s1', 'a', message(1));
      expect((await store.replayAfter('s1', primed))?.events).toEqual([{ id, message: message(1) }]);
    });

    it('keeps streams apart, and says when a stream ended', async () => {
      const a = await store.append('s1', 'a', message(1));
      const b = await store.append('s1', 'b', message(2));
      await store.append('s1', 'b', message(3));
      await store.end('s1', 'b');
      expect(await store.replayAfter('s1', a)).toMatchObject({ streamId: 'a', events: [], ended: false });
      expect(await store.replayAfter('s1', b)).toMatchObject({
        streamId: 'b',
        events: [{ message: message(3) }],
        ended: true,
      });
    });

    it("never replays another session's events, nor anything for an unknown or malformed id", async () => {
      const id = await store.append('s1', 'a', message(1));
      await store.append('s1', 'a', message(2));
      expect(await store.replayAfter('s2', id)).toBeUndefined();
      expect(await store.replayAfter('s1', 'nonsense')).toBeUndefined();
      expect(await store.replayAfter('s1', 'x'.repeat(10_000))).toBeUndefined();
    });

    it('forgets every stream of a deleted session', async () => {
      const id = await store.append('s1', 'a', message(1));
      const other = await store.append('s2', 'c', message(1));
      await store.deleteSession('s1');
      expect(await store.replayAfter('s1', id)).toBeUndefined();
      expect(await store.replayAfter('s2', other)).toBeDefined();
    });

    it('keeps at most the newest events of a stream', async () => {
      const ids: string[] = [];
      for (let n = 0; n < 8; n++) ids.push(await store.append('s1', 'a', message(n)));
      const replay = await store.replayAfter('s1', ids[5]);
      expect(replay?.events.map((event) => event.message)).toEqual([message(6), message(7)]);
      const all = await store.replayAfter('s1', ids[4]);
      expect(all?.events.length).toBeLessThanOrEqual(5);
    });
  });
}

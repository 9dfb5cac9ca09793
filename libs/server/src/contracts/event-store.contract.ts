/// <reference types="jest" />
// A Jest suite to run in a spec: it uses the Jest globals of the run that imports it.
import { JsonRpcMessage } from '@conduit-mcp/core';
import { EventReplay, EventStore } from '../transports/http/event.store';

/**
 * The bounds a store under test is made with: events per stream, and bytes of event data (each message's JSON length)
 * per stream and in all.
 */
export interface EventStoreBounds {
  maxEventsPerStream: number;
  maxBytesPerStream: number;
  maxBytes: number;
}

/** An implementation under test: its name, and a factory of a fresh, empty store keeping within `bounds`. */
export type EventStoreCase = [name: string, make: (bounds: EventStoreBounds) => EventStore | Promise<EventStore>];

const message = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });
// A message whose JSON is exactly `bytes` long (ASCII).
const sized = (n: number, bytes: number): JsonRpcMessage => {
  const bare = JSON.stringify({ jsonrpc: '2.0', id: n, result: { text: '' } }).length;
  return { jsonrpc: '2.0', id: n, result: { text: 'x'.repeat(bytes - bare) } };
};
const jsonBytes = (replay: EventReplay | undefined): number =>
  (replay?.events ?? []).reduce((sum, event) => sum + JSON.stringify(event.message).length, 0);
const LOOSE = { maxEventsPerStream: 5, maxBytesPerStream: 1024 * 1024, maxBytes: 16 * 1024 * 1024 };

/**
 * The contract every {@link EventStore} meets, as a Jest suite: run it in a spec of your own over your
 * implementation(s). Each case's factory returns a fresh, empty store within the bounds given (bytes are counted as
 * the length of each message's JSON): past them the oldest events go first, and a replay never skips one.
 *
 * @example
 * eventStoreContract([['RedisEventStore', (bounds) => new RedisEventStore(redis, { prefix, ...bounds })]]);
 */
export function eventStoreContract(cases: EventStoreCase[]): void {
  describe.each(cases)('EventStore contract: %s', (_name, make) => {
    let store: EventStore;

    beforeEach(async () => {
      store = await make(LOOSE);
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

    it('never replays with a gap: an id whose successors were dropped is unknown', async () => {
      const ids: string[] = [];
      for (let n = 0; n < 8; n++) ids.push(await store.append('s1', 'a', message(n)));
      expect(await store.replayAfter('s1', ids[0])).toBeUndefined();
      for (let n = 0; n < 8; n++) {
        const replay = await store.replayAfter('s1', ids[n]);
        if (replay) expect(replay.events.map((event) => event.id)).toEqual(ids.slice(n + 1));
      }
    });

    it('keeps at most maxBytesPerStream bytes of a stream, the newest, and never a gap', async () => {
      store = await make({ maxEventsPerStream: 100, maxBytesPerStream: 1_000, maxBytes: 100_000 });
      const ids: string[] = [];
      for (let n = 0; n < 10; n++) ids.push(await store.append('s1', 'a', sized(n, 300)));
      expect(await store.replayAfter('s1', ids[0])).toBeUndefined();
      expect((await store.replayAfter('s1', ids[8]))?.events.map((event) => event.id)).toEqual([ids[9]]);
      for (let n = 0; n < 10; n++) {
        const replay = await store.replayAfter('s1', ids[n]);
        if (!replay) continue;
        expect(replay.events.map((event) => event.id)).toEqual(ids.slice(n + 1));
        expect(jsonBytes(replay)).toBeLessThanOrEqual(1_000);
      }
    });

    it('gives an event larger than maxBytesPerStream an id that still resumes what follows it', async () => {
      store = await make({ maxEventsPerStream: 100, maxBytesPerStream: 1_000, maxBytes: 100_000 });
      const before = await store.append('s1', 'a', sized(1, 300));
      const big = await store.append('s1', 'a', sized(2, 5_000));
      const after = await store.append('s1', 'a', sized(3, 300));
      expect(await store.replayAfter('s1', before)).toBeUndefined();
      expect(await store.replayAfter('s1', big)).toEqual({
        streamId: 'a',
        events: [{ id: after, message: sized(3, 300) }],
        ended: false,
      });
    });

    it('keeps at most maxBytes in all, dropping whole streams, least recently written first', async () => {
      store = await make({ maxEventsPerStream: 100, maxBytesPerStream: 1_000, maxBytes: 2_000 });
      const firsts: string[] = [];
      for (const stream of ['a', 'b', 'c', 'd']) {
        const session = `session-${stream}`;
        firsts.push(await store.append(session, stream));
        for (let n = 0; n < 3; n++) await store.append(session, stream, sized(n, 300));
      }
      const replays = await Promise.all(
        ['a', 'b', 'c', 'd'].map((stream, n) => store.replayAfter(`session-${stream}`, firsts[n])),
      );
      expect(replays.reduce((sum, replay) => sum + jsonBytes(replay), 0)).toBeLessThanOrEqual(2_000);
      expect(replays[0]).toBeUndefined();
      expect(replays[3]?.events).toHaveLength(3);
      for (const replay of replays) if (replay) expect([0, 3]).toContain(replay.events.length);
    });
  });
}

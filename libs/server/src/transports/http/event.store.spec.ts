import { eventStoreContract } from '../../testing/event-store.contract';
import { JsonRpcMessage } from '@conduit-mcp/core';
import { InMemoryEventStore } from './event.store';

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

describe('InMemoryEventStore', () => {
  afterEach(() => jest.useRealTimers());

  it('replays the events after an id, on that stream only', () => {
    const store = new InMemoryEventStore();
    const first = store.append('s1', 'a', note(1));
    store.append('s1', 'b', note(99));
    const second = store.append('s1', 'a', note(2));
    store.append('s1', 'a', note(3));
    const replay = store.replayAfter('s1', first)!;
    expect(replay.streamId).toBe('a');
    expect(replay.ended).toBe(false);
    expect(replay.events.map((event) => event.message)).toEqual([note(2), note(3)]);
    expect(replay.events[0].id).toBe(second);
  });

  it('gives ids that are unique across streams and name their stream', () => {
    const store = new InMemoryEventStore();
    const ids = [store.append('s', 'a', note(1)), store.append('s', 'b', note(1)), store.append('s', 'a')];
    expect(new Set(ids).size).toBe(3);
    expect(ids[0].startsWith('a:')).toBe(true);
    expect(ids[1].startsWith('b:')).toBe(true);
  });

  it('uses a priming mark as a cursor but never replays it', () => {
    const store = new InMemoryEventStore();
    const priming = store.append('s', 'a');
    store.append('s', 'a', note(1));
    expect(store.replayAfter('s', priming)!.events.map((event) => event.message)).toEqual([note(1)]);
  });

  it('reports a stream as ended', () => {
    const store = new InMemoryEventStore();
    const id = store.append('s', 'a', note(1));
    store.end('s', 'a');
    expect(store.replayAfter('s', id)).toEqual({ streamId: 'a', events: [], ended: true });
  });

  it("scopes lookups to the session: another session's id resolves to nothing", () => {
    const store = new InMemoryEventStore();
    const id = store.append('owner', 'a', note(1));
    store.append('owner', 'a', note(2));
    expect(store.replayAfter('stranger', id)).toBeUndefined();
    store.end('stranger', 'a');
    expect(store.replayAfter('owner', id)!.ended).toBe(false);
  });

  it.each(['', 'a', 'a:', ':1', 'a:x', 'unknown:1', `${'a'.repeat(300)}:1`])(
    'ignores the malformed or unknown id %p',
    (id) => {
      const store = new InMemoryEventStore();
      store.append('s', 'a', note(1));
      expect(store.replayAfter('s', id)).toBeUndefined();
    },
  );

  it('keeps at most maxEventsPerStream events per stream, dropping the oldest', () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 3 });
    const first = store.append('s', 'a', note(0));
    for (let n = 1; n <= 5; n++) store.append('s', 'a', note(n));
    expect(store.replayAfter('s', first)!.events.map((event) => event.message)).toEqual([note(3), note(4), note(5)]);
  });

  it('keeps at most maxStreams streams, dropping the least recently written', () => {
    const store = new InMemoryEventStore({ maxStreams: 2 });
    const a = store.append('s', 'a', note(1));
    const b = store.append('s', 'b', note(1));
    store.append('s', 'a', note(2));
    store.append('s', 'c', note(1));
    expect(store.size).toBe(2);
    expect(store.replayAfter('s', b)).toBeUndefined();
    expect(store.replayAfter('s', a)).toBeDefined();
  });

  it('keeps at most maxEvents events in all', () => {
    const store = new InMemoryEventStore({ maxEvents: 4 });
    const a = store.append('s', 'a', note(1));
    store.append('s', 'a', note(2));
    store.append('s', 'b', note(1));
    store.append('s', 'b', note(2));
    store.append('s', 'c', note(1));
    expect(store.replayAfter('s', a)).toBeUndefined();
    expect(store.size).toBe(2);
  });

  it('expires streams not written for ttlMs', () => {
    jest.useFakeTimers();
    const store = new InMemoryEventStore({ ttlMs: 1_000 });
    const old = store.append('s', 'a', note(1));
    jest.advanceTimersByTime(600);
    const recent = store.append('s', 'b', note(1));
    jest.advanceTimersByTime(600);
    expect(store.replayAfter('s', old)).toBeUndefined();
    expect(store.replayAfter('s', recent)).toBeDefined();
    store.append('s', 'c', note(1));
    expect(store.size).toBe(2);
  });

  it('forgets every stream of a deleted session', () => {
    const store = new InMemoryEventStore();
    const a = store.append('s', 'a', note(1));
    store.append('s', 'b', note(1));
    const other = store.append('t', 'c', note(1));
    store.deleteSession('s');
    expect(store.size).toBe(1);
    expect(store.replayAfter('s', a)).toBeUndefined();
    expect(store.replayAfter('t', other)).toBeDefined();
  });
});

eventStoreContract([
  ['InMemoryEventStore', ({ maxEventsPerStream }) => new InMemoryEventStore({ maxEventsPerStream })],
]);

import { eventStoreContract } from '../../contracts/event-store.contract';
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

  it('keeps at most maxEventsPerStream events per stream, dropping the oldest; an id before them is unknown', () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 3 });
    const ids = [store.append('s', 'a', note(0))];
    for (let n = 1; n <= 5; n++) ids.push(store.append('s', 'a', note(n)));
    // Resuming from 0 would skip 1 and 2: unknown, never a replay with a gap.
    expect(store.replayAfter('s', ids[0])).toBeUndefined();
    expect(store.replayAfter('s', ids[1])).toBeUndefined();
    expect(store.replayAfter('s', ids[2])!.events.map((event) => event.message)).toEqual([note(3), note(4), note(5)]);
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

describe('InMemoryEventStore byte budgets', () => {
  const MiB = 1024 * 1024;
  // A reply of `bytes` bytes of JSON.
  const reply = (n: number, text: string): JsonRpcMessage => ({ jsonrpc: '2.0', id: n, result: { text } });
  const jsonBytes = (replay: { events: Array<{ message: JsonRpcMessage }> } | undefined) =>
    (replay?.events ?? []).reduce((sum, event) => sum + JSON.stringify(event.message).length, 0);

  it('keeps a session that streamed 100 replies of 2-4 MiB under its budget, and the store under its own', () => {
    const store = new InMemoryEventStore();
    const text = 'x'.repeat(4 * MiB);
    const primings: string[] = [];
    for (let n = 0; n < 100; n++) {
      const stream = `post-${n}`;
      primings.push(store.append('attacker', stream));
      // Handed over serialized, as the transport does: the test measures the store, not JSON.stringify.
      const body = text.slice(0, 2 * MiB + ((n * 20_011) % (2 * MiB)));
      store.append('attacker', stream, reply(n, body), `{"jsonrpc":"2.0","id":${n},"result":{"text":"${body}"}}`);
      store.end('attacker', stream);
    }
    expect(store.bytes).toBeLessThanOrEqual(16 * MiB);
    // What a client could still get back, stream by stream, stays within the budget too.
    const replayable = primings.reduce((sum, id) => sum + jsonBytes(store.replayAfter('attacker', id)), 0);
    expect(replayable).toBeLessThanOrEqual(16 * MiB);
    expect(replayable).toBeGreaterThan(0);
    // The newest reply is still there to resume.
    expect(store.replayAfter('attacker', primings[99])!.events).toHaveLength(1);
  });

  it('keeps at most maxBytes in all, dropping the least recently written streams of any session', () => {
    const store = new InMemoryEventStore({ maxBytes: 10_000, maxBytesPerSession: 10_000 });
    const text = 'y'.repeat(3_000);
    const firsts = ['s1', 's2', 's3', 's4', 's5'].map((session, n) => {
      const first = store.append(session, `stream-${n}`);
      store.append(session, `stream-${n}`, reply(n, text));
      return first;
    });
    expect(store.bytes).toBeLessThanOrEqual(10_000);
    expect(store.replayAfter('s1', firsts[0])).toBeUndefined();
    expect(store.replayAfter('s5', firsts[4])!.events).toHaveLength(1);
  });

  it("drops a session's own oldest streams past maxBytesPerSession, leaving other sessions alone", () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 10_000 });
    const text = 'z'.repeat(3_000);
    const bystander = store.append('quiet', 'q');
    store.append('quiet', 'q', reply(0, text));
    const firsts: string[] = [];
    for (let n = 0; n < 6; n++) {
      firsts.push(store.append('noisy', `n-${n}`));
      store.append('noisy', `n-${n}`, reply(n, text));
    }
    expect(store.bytes).toBeLessThanOrEqual(10_000 + 3_100);
    expect(store.replayAfter('noisy', firsts[0])).toBeUndefined();
    expect(store.replayAfter('noisy', firsts[5])!.events).toHaveLength(1);
    expect(store.replayAfter('quiet', bystander)!.events).toHaveLength(1);
  });

  it('sends an event larger than maxBytesPerStream without keeping it; its id still resumes what follows', () => {
    const store = new InMemoryEventStore({ maxBytesPerStream: 1_000 });
    const before = store.append('s', 'a', note(1));
    const big = store.append('s', 'a', reply(2, 'b'.repeat(2_000)));
    const after = store.append('s', 'a', note(3));
    expect(store.bytes).toBe(JSON.stringify(note(3)).length);
    expect(store.replayAfter('s', before)).toBeUndefined();
    expect(store.replayAfter('s', big)!.events).toEqual([{ id: after, message: note(3) }]);
  });

  it('keeps a snapshot of each message, whatever the caller does with its objects later', () => {
    const store = new InMemoryEventStore();
    const first = store.append('s', 'a');
    const params = { n: 1 };
    store.append('s', 'a', { jsonrpc: '2.0', method: 'notifications/message', params });
    params.n = 99;
    expect(store.replayAfter('s', first)!.events[0].message).toEqual(note(1));
  });

  it('keeps nothing of a stream dropped and written again from before it was dropped', () => {
    const store = new InMemoryEventStore({ maxStreams: 1 });
    const early = store.append('s', 'a', note(1));
    store.append('s', 'b', note(1));
    store.append('s', 'a', note(2));
    expect(store.replayAfter('s', early)).toBeUndefined();
  });

  it('forgets the events of a delivered stream, keeping its end for a resumption after its last event', () => {
    const store = new InMemoryEventStore();
    const first = store.append('s', 'a', note(1));
    const last = store.append('s', 'a', note(2));
    const other = store.append('s', 'b', note(1));
    store.end('s', 'a');
    store.forget('other session', 'a');
    expect(store.replayAfter('s', first)?.events).toHaveLength(1);
    store.forget('s', 'a');
    expect(store.replayAfter('s', last)).toEqual({ streamId: 'a', events: [], ended: true });
    expect(store.replayAfter('s', first)).toBeUndefined();
    expect(store.bytes).toBe(JSON.stringify(note(1)).length);
    expect(store.replayAfter('s', other)?.events).toEqual([]);
  });

  it('expires streams on reads too', () => {
    jest.useFakeTimers();
    const store = new InMemoryEventStore({ ttlMs: 1_000 });
    const id = store.append('s', 'a', note(1));
    jest.advanceTimersByTime(1_500);
    expect(store.replayAfter('s', id)).toBeUndefined();
    expect(store.size).toBe(0);
    expect(store.bytes).toBe(0);
    jest.useRealTimers();
  });
});

eventStoreContract([['InMemoryEventStore', (bounds) => new InMemoryEventStore(bounds)]]);

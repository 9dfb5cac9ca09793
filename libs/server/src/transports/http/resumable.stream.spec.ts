import { JsonRpcMessage } from '@conduit-mcp/core';
import { EventReplay, EventStore, InMemoryEventStore } from './event.store';
import { ResumableStream } from './resumable.stream';
import { SseStream } from './sse.stream';

/** An asynchronous store (as a shared one is): each call answers after a delay of its own, so out of order. */
class SlowEventStore implements EventStore {
  private readonly inner = new InMemoryEventStore();
  private calls = 0;
  /** The call (counted from 0) that fails. */
  failCall = -1;

  private later<T>(value: () => T): Promise<T> {
    const call = this.calls++;
    const delay = [15, 1, 8, 3][call % 4];
    return new Promise((resolve, reject) =>
      setTimeout(() => (call === this.failCall ? reject(new Error('store down')) : resolve(value())), delay),
    );
  }

  append(sessionId: string, streamId: string, message?: JsonRpcMessage): Promise<string> {
    const id = this.inner.append(sessionId, streamId, message); // the id is taken now, answered later
    return this.later(() => id);
  }
  end(sessionId: string, streamId: string): Promise<void> {
    return this.later(() => this.inner.end(sessionId, streamId));
  }
  replayAfter(sessionId: string, lastEventId: string): Promise<EventReplay | undefined> {
    return this.later(() => this.inner.replayAfter(sessionId, lastEventId));
  }
  deleteSession(sessionId: string): Promise<void> {
    return this.later(() => this.inner.deleteSession(sessionId));
  }
}

/** Records what a stream writes to its connection. */
function fakeConnection() {
  const written: Array<{ id?: string; n?: unknown; priming?: boolean }> = [];
  let ended = false;
  const connection = {
    onClose: () => undefined,
    send: (message: JsonRpcMessage, _json?: string, id?: string) => {
      written.push({ id, n: (message as { params?: { n?: unknown } }).params?.n });
      return true;
    },
    writeEvent: (event: { id?: string }) => {
      written.push({ id: event.id, priming: true });
      return true;
    },
    end: () => {
      ended = true;
    },
  };
  return { connection: connection as unknown as SseStream, written, ended: () => ended };
}

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

describe('ResumableStream over an asynchronous event store', () => {
  it('writes events in the order they were sent, each with its id, and ends after the last', async () => {
    const store = new SlowEventStore();
    const stream = new ResumableStream(store, 's1', 'a');
    const { connection, written, ended } = fakeConnection();
    stream.attach(connection);
    stream.prime();
    for (let n = 1; n <= 5; n++) stream.send(note(n));
    stream.finish();
    expect(written).toEqual([]); // nothing yet: every id is still on its way
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(written.map((w) => (w.priming ? 'prime' : w.n))).toEqual(['prime', 1, 2, 3, 4, 5]);
    expect(written.every((w) => typeof w.id === 'string')).toBe(true);
    expect(ended()).toBe(true);
    // Resumable from any of them.
    const replay = await store.replayAfter('s1', written[2].id!);
    expect(replay?.events.map((e) => (e.message as { params?: Record<string, unknown> }).params?.n)).toEqual([3, 4, 5]);
    expect(replay?.ended).toBe(true);
  });

  it('still sends an event the store failed to record, without an id (not resumable, not lost)', async () => {
    const store = new SlowEventStore();
    const stream = new ResumableStream(store, 's1', 'a');
    const { connection, written } = fakeConnection();
    stream.attach(connection);
    store.failCall = 0;
    stream.send(note(1));
    stream.send(note(2));
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(written).toEqual([
      { id: undefined, n: 1 },
      { id: expect.any(String), n: 2 },
    ]);
  });

  it('writes at once with the synchronous in-memory store', () => {
    const stream = new ResumableStream(new InMemoryEventStore(), 's1', 'a');
    const { connection, written } = fakeConnection();
    stream.attach(connection);
    stream.send(note(1));
    expect(written).toEqual([{ id: 'a:1', n: 1 }]);
  });
});

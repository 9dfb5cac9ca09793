import http, { ServerResponse } from 'node:http';
import { createParser, EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import { JsonRpcMessage, SseOutgoingEvent } from '@conduit-mcp/core';
import { InMemoryEventStore } from './event.store';
import { TestServer, startServer } from './http-test.fixtures-spec';
import { ResumableStream } from './resumable.stream';
import { SseStream } from './sse.stream';

const text = fc.string({
  unit: fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    { weight: 2, arbitrary: fc.constantFrom('\n', '\r', '\r\n', '\n\n', '\r\r', ':', ' ', 'data: x', '\0', '😀') },
  ),
  maxLength: 30,
});
const safeId = text.filter((s) => !/[\r\n\0]/.test(s));
const name = text.filter((s) => s !== '' && !/[\r\n]/.test(s));
const message: fc.Arbitrary<JsonRpcMessage> = fc.record(
  { jsonrpc: fc.constant('2.0' as const), method: text.filter((s) => s !== ''), params: fc.dictionary(text, text) },
  { requiredKeys: ['jsonrpc', 'method'] },
);

/** One write to the stream: a raw event (some of which cannot be encoded), or a JSON-RPC message. */
type Write = { event: SseOutgoingEvent } | { message: JsonRpcMessage; id?: string };
const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ event: fc.record({ id: safeId, event: name, data: text }, { requiredKeys: ['data'] }) }),
  fc.record({ event: fc.record({ id: text, event: text, data: text }, { requiredKeys: ['data'] }) }),
  fc.record({ message, id: safeId }, { requiredKeys: ['message'] }),
);

const encodable = ({ id, event }: SseOutgoingEvent) => !/[\r\n\0]/.test(id ?? '') && !/[\r\n]/.test(event ?? '');

/** What the client must read back for a write, or nothing for one the stream refused. */
function expected(item: Write): Array<{ id?: string; event?: string; data: string }> {
  if ('message' in item)
    return [{ ...(item.id !== undefined && { id: item.id }), event: 'message', data: JSON.stringify(item.message) }];
  const { id, event, data } = item.event;
  if (!encodable(item.event)) return [];
  // An empty event name is the default type: the client reads it as absent.
  return [{ ...(id !== undefined && { id }), ...(event && { event }), data: data.replace(/\r\n|\r/g, '\n') }];
}

describe('SseStream output read back with eventsource-parser (properties, one real connection)', () => {
  let server: TestServer;
  let stream: SseStream;
  let request: http.ClientRequest;
  const received: EventSourceMessage[] = [];
  let wake: () => void = () => undefined;

  beforeAll(async () => {
    let opened!: (s: SseStream) => void;
    const ready = new Promise<SseStream>((resolve) => (opened = resolve));
    server = await startServer((_req, res: ServerResponse) => opened(new SseStream(res, { keepAliveMs: 0 })));
    const parser = createParser({
      onEvent: (event) => {
        received.push(event);
        wake();
      },
    });
    const decoder = new TextDecoder();
    request = http.get({ host: '127.0.0.1', port: server.port, path: '/', agent: false }, (res) =>
      res.on('data', (chunk: Buffer) => parser.feed(decoder.decode(chunk, { stream: true }))),
    );
    stream = await ready;
  });

  afterAll(async () => {
    request.destroy();
    await server.close();
  });

  /** Writes a marker event and resolves with everything read before it. */
  async function readUpToMarker(marker: string): Promise<EventSourceMessage[]> {
    expect(stream.writeEvent({ event: 'marker', data: marker })).toBe(true);
    const deadline = Date.now() + 10_000;
    const isMarker = (e: EventSourceMessage) => e.event === 'marker' && e.data === marker;
    while (!received.some(isMarker)) {
      if (Date.now() > deadline) throw new Error(`marker ${marker} never arrived`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        wake = () => (clearTimeout(timer), resolve());
      });
    }
    const events = received.splice(0, received.findIndex(isMarker) + 1).slice(0, -1);
    return events.map(({ id, event, data }) => ({
      ...(id !== undefined && { id }),
      ...(event !== undefined && { event }),
      data,
    }));
  }

  it('delivers every event it accepts, data and id intact, and drops (without writing) the ones it cannot encode', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(write, { maxLength: 6 }), async (writes) => {
        await readUpToMarker(`before-${++run}`); // what a failed run left unread is not this run's
        const accepted = writes.map((item) =>
          'message' in item ? stream.send(item.message, undefined, item.id) : stream.writeEvent(item.event),
        );
        expect(accepted).toEqual(writes.map((item) => 'message' in item || encodable(item.event)));
        expect(await readUpToMarker(`after-${run}`)).toEqual(writes.flatMap(expected));
      }),
      { numRuns: 60 },
    );
  });

  it('writes a resumable stream as events whose ids replay the same messages', async () => {
    const store = new InMemoryEventStore();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 5 }), async (messages) => {
        await readUpToMarker(`before-resumable-${++run}`);
        const resumable = new ResumableStream(store, 'session', `stream-${run}`);
        resumable.attach(stream);
        resumable.prime();
        for (const m of messages) expect(resumable.send(m)).toBe(true);
        const events = await readUpToMarker(`resumable-${run}`);
        const [priming, ...rest] = events;
        expect(priming).toEqual({ id: expect.any(String), data: '' });
        expect(rest.map((e) => ({ event: e.event, message: JSON.parse(e.data) }))).toEqual(
          messages.map((m) => ({ event: 'message', message: m })),
        );
        const replay = await store.replayAfter('session', priming.id as string);
        expect(replay?.events.map((e) => e.message)).toEqual(messages);
        expect(replay?.events.map((e) => e.id)).toEqual(rest.map((e) => e.id));
      }),
      { numRuns: 30 },
    );
  });
});

import { StreamableHttpClientTransport } from '../../libs/client/src/transports/streamable-http-client.transport';
import { DEFAULT_RECONNECT } from '../../libs/client/src/transports/reconnect.backoff';
import { RawServer, Recorder, sseEvent, sseHead, startRawServer, waitFor } from './transport-test.fixtures';

// A server that answers every stream, the POST reply and each reconnection alike, with a priming event (an id and
// `retry: 0`, no message) and closes it at once, forever. Before the clamp and the cap, the client reconnected in a
// tight loop for as long as the server kept this up.
function closesAtOnce(): Promise<RawServer> {
  let ids = 0;
  return startRawServer((_req, res) => {
    sseHead(res, { 'Mcp-Session-Id': 's' });
    res.end(sseEvent('', { id: `e${++ids}`, retry: 0 }));
  });
}

describe('Streamable HTTP client against a server that sends retry: 0 and closes every stream at once', () => {
  let server: RawServer;
  let transport: StreamableHttpClientTransport;

  beforeEach(async () => {
    server = await closesAtOnce();
    // The defaults: what McpClientModule uses.
    transport = new StreamableHttpClientTransport({ url: server.url });
  });

  afterEach(async () => {
    await transport.close();
    await server.close();
  });

  const gets = () => server.requests.filter((request) => request.method === 'GET');

  it('does not spin: reconnects no faster than the clamped, growing delay, then gives up and answers the request', async () => {
    const recorder = new Recorder(transport);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const postAt = Date.now();
    // Delays of at least 100, 150, 225, 337.5 ms (retry: 0 raised to minDelayMs, grown by 1.5): at most 4 GETs in
    // the first second, however slow the machine (a slow one makes fewer).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const inFirstSecond = gets().filter((get) => get.headers['last-event-id'] !== undefined).length;
    expect(inFirstSecond).toBeLessThanOrEqual(4);
    const answer = await recorder.response(1, 20_000);
    expect(answer.error).toMatchObject({
      code: -32000,
      message: `The response stream was lost (gave up after ${DEFAULT_RECONNECT.maxRetries} reconnection attempts)`,
    });
    expect(recorder.errors.map((error) => error.message)).toEqual([
      `SSE stream lost: gave up after ${DEFAULT_RECONNECT.maxRetries} reconnection attempts`,
    ]);
    expect(gets()).toHaveLength(DEFAULT_RECONNECT.maxRetries);
    // Each reconnection resumed from the event before it; none came earlier than the clamped retry: (100 ms).
    expect(gets().map((get) => get.headers['last-event-id'])).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(Date.now() - postAt).toBeGreaterThanOrEqual(100 + 150 + 225 + 337);
    // Given up for good: nothing more comes.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(gets()).toHaveLength(DEFAULT_RECONNECT.maxRetries);
  });

  it('gives up on the standalone GET stream the same way', async () => {
    const recorder = new Recorder(transport);
    await transport.openStandaloneStream();
    await waitFor(() => recorder.errors.length > 0, 20_000, 'the transport to give up');
    expect(recorder.errors.map((error) => error.message)).toEqual([
      `SSE stream lost: gave up after ${DEFAULT_RECONNECT.maxRetries} reconnection attempts`,
    ]);
    expect(gets()).toHaveLength(1 + DEFAULT_RECONNECT.maxRetries);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(gets()).toHaveLength(1 + DEFAULT_RECONNECT.maxRetries);
  });
});

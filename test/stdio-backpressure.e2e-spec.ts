import { MODERN_META, ScenarioProcess } from './scenarios/scenario.process';
import { STDIO_APP } from './scenarios/stdio/stdio.app';

// The child runs on ts-node, which compiles the app and the libs at start; the replies total 100 MiB.
jest.setTimeout(180_000);

const MiB = 1024 * 1024;
const REQUESTS = 100;
const REPLY_BYTES = MiB;
// Long requests (big arguments): about one per read of stdin, so the server never has many in flight at once.
const PAD = 'p'.repeat(64 * 1024);
// Far under what 100 buffered replies of 1 MiB take, far over what the few in flight take.
const RSS_GROWTH_BOUND = 128 * MiB;
// The server reads what its stdin's pipe and buffer hold before it notices stdout is full, not much more.
const STDIN_READ_BOUND = 32 * PAD.length;
const WATCH_MS = 6_000;

describe('stdio: a client that sends requests but does not read stdout', () => {
  let server: ScenarioProcess;

  afterEach(() => server.stop());

  it('stops reading stdin while stdout is full, keeps memory bounded, and answers everything in order once read', async () => {
    server = new ScenarioProcess(STDIO_APP, { stdout: 'manual' });
    const ids: unknown[] = [];
    const wrongLength: unknown[] = [];
    let partial = '';
    server.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line) as { id: unknown; result?: { content?: Array<{ text?: string }> } };
        ids.push(message.id);
        const expected = message.id === 0 ? 1 : REPLY_BYTES;
        if (message.result?.content?.[0]?.text?.length !== expected) wrongLength.push(message.id);
      }
    });
    const call = (id: number, bytes: number) =>
      server.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'big', arguments: { bytes, pad: PAD }, _meta: MODERN_META },
      });

    call(0, 1);
    await server.waitFor(() => ids.length === 1, 'the server to start');
    // From now on nobody reads the child's stdout: its pipe fills, then its own buffer.
    server.child.stdout.pause();
    const baseline = { rss: server.rss(), read: server.bytesRead() };
    for (let id = 1; id <= REQUESTS; id++) call(id, REPLY_BYTES);

    // Watched for a while (less when the server already read or buffered more than it may).
    let grown = 0;
    let read = 0;
    for (const started = Date.now(); Date.now() - started < WATCH_MS;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      grown = Math.max(grown, server.rss() - baseline.rss);
      read = server.bytesRead() - baseline.read;
      if (grown >= RSS_GROWTH_BOUND || read >= STDIN_READ_BOUND) break;
    }
    expect(grown).toBeLessThan(RSS_GROWTH_BOUND);
    // It stopped reading its stdin: our writes wait, the requests stay with us.
    expect(read).toBeLessThan(STDIN_READ_BOUND);
    expect(server.child.stdin.writableLength).toBeGreaterThan(0);
    expect(ids).toEqual([0]);

    server.child.stdout.resume();
    await server.waitFor(() => ids.length === REQUESTS + 1, 'every reply', 150_000);
    expect(ids).toEqual(Array.from({ length: REQUESTS + 1 }, (_, id) => id));
    expect(wrongLength).toEqual([]);
    server.child.stdin.end();
    expect((await server.exited).code).toBe(0);
  });
});

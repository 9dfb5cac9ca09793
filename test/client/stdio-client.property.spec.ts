import fc from 'fast-check';
import { serializeLine } from '@conduit-mcp/core';
import { MessageTooLargeError } from '../../libs/client/src/transports/client-transport.errors';
import { StdioClientTransport } from '../../libs/client/src/transports/stdio-client.transport';
import { waitFor } from './transport-test.fixtures';

// A child that writes to stdout exactly the chunks it is given (base64), one write per chunk, then a `done` line.
const REPLAYER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const write = (bytes) => new Promise((resolve) => process.stdout.write(bytes, () => setImmediate(resolve)));
let queue = Promise.resolve();
rl.on('line', (line) => {
  const { params } = JSON.parse(line);
  queue = queue.then(async () => {
    for (const chunk of params.chunks) await write(Buffer.from(chunk, 'base64'));
    await write(JSON.stringify({ jsonrpc: '2.0', method: 'done', params: { run: params.run } }) + '\\n');
  });
});
`;

const MAX_LINE_BYTES = 400;

const text = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.constantFrom('\n', '\r', '\u2028', '\0', 'é', '€', '😀'),
  ),
  maxLength: 24,
});
// Messages of every size up to twice the limit, padded with ASCII after text of every UTF-8 width.
const message = fc
  .tuple(text, fc.dictionary(text, text, { maxKeys: 3 }), fc.nat({ max: 2 * MAX_LINE_BYTES }))
  .map(([method, params, pad]) => ({ jsonrpc: '2.0', method, params, pad: 'a'.repeat(pad) }));

function cut(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [0, ...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  return points.map((start, i) => bytes.subarray(start, points[i + 1] ?? bytes.length)).filter((c) => c.length > 0);
}

describe('StdioClientTransport (properties, one real child process)', () => {
  let transport: StdioClientTransport;
  const seen: unknown[] = [];

  beforeAll(async () => {
    transport = new StdioClientTransport(
      { command: process.execPath, args: ['-e', REPLAYER] },
      { maxLineBytes: MAX_LINE_BYTES },
    );
    transport.onmessage = (value) => seen.push(value);
    transport.onerror = (error) => seen.push(error instanceof MessageTooLargeError ? 'too large' : error.message);
    await transport.start();
  });

  afterAll(() => transport.close());

  it('delivers exactly the lines the server wrote, however stdout is cut, and drops each oversize line once', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(message, { maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (messages, at) => {
          run++;
          seen.length = 0;
          const lines = messages.map(serializeLine);
          const chunks = cut(Buffer.from(lines.join('')), at).map((chunk) => chunk.toString('base64'));
          await transport.send({ jsonrpc: '2.0', method: 'replay', params: { run, chunks } });
          const done = { jsonrpc: '2.0', method: 'done', params: { run } };
          await waitFor(() => seen.some((m) => JSON.stringify(m) === JSON.stringify(done)), 10_000, `run ${run}`);
          expect(seen).toEqual([
            ...lines.map((line) => (Buffer.byteLength(line) - 1 > MAX_LINE_BYTES ? 'too large' : JSON.parse(line))),
            done,
          ]);
        },
      ),
      { numRuns: 40 },
    );
  });
});

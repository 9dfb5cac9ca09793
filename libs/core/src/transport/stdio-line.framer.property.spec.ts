import fc from 'fast-check';
import { PassThrough } from 'node:stream';
import { ErrorCode } from '../jsonrpc/jsonrpc.errors';
import { LineFramer, serializeLine } from './stdio-line.framer';
import { StdioTransport } from './stdio.transport';

// Strings of whole code points of every UTF-8 width (1 to 4 bytes), control characters, U+2028/9 and `\r` included.
const text = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.constantFrom('\n', '\r', '\r\n', '\u2028', '\u2029', '\0', 'é', '€', '😀'),
  ),
  maxLength: 24,
});
const message = fc.record(
  {
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), text),
    method: text,
    params: fc.dictionary(text, fc.oneof(text, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 4 }),
  },
  { requiredKeys: ['jsonrpc', 'method'] },
);

/** Cuts `bytes` at the given positions (taken modulo its length + 1): any byte, so also inside a UTF-8 character. */
function cut(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let last = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(last, point));
    last = point;
  }
  chunks.push(bytes.subarray(last));
  return chunks;
}

const cuts = fc.array(fc.nat(), { maxLength: 40 });
/** What a value becomes on the wire (-0 is the JSON number 0). */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** A message padded with ASCII so that its line (without the newline) is exactly `bytes` long. */
function messageOfSize(base: object, bytes: number): object {
  const size = Buffer.byteLength(serializeLine({ ...base, pad: '' })) - 1;
  return { ...base, pad: 'a'.repeat(Math.max(0, bytes - size)) };
}

describe('LineFramer (properties)', () => {
  it('yields exactly the serialized messages, however the bytes are cut', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), cuts, (messages, at) => {
        const bytes = Buffer.from(messages.map(serializeLine).join(''));
        const framer = new LineFramer();
        const frames = cut(bytes, at).flatMap((chunk) => framer.push(chunk));
        expect(frames.map((frame) => ('line' in frame ? JSON.parse(frame.line) : frame))).toEqual(messages.map(wire));
      }),
      { numRuns: 200 },
    );
  });

  it('yields the same lines fed one byte at a time', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 3 }), (messages) => {
        const bytes = Buffer.from(messages.map(serializeLine).join(''));
        const framer = new LineFramer();
        const frames = [...bytes].flatMap((byte) => framer.push(Buffer.of(byte)));
        expect(frames).toEqual(messages.map((m) => ({ line: serializeLine(m).slice(0, -1) })));
      }),
      { numRuns: 50 },
    );
  });

  it('refuses exactly the lines over maxLineBytes, once each and in order, and keeps framing after them', () => {
    const max = 200;
    const sized = fc.tuple(message, fc.integer({ min: 0, max: 3 * max })).map(([m, size]) => messageOfSize(m, size));
    fc.assert(
      fc.property(fc.array(sized, { maxLength: 6 }), cuts, (messages, at) => {
        const lines = messages.map(serializeLine);
        const framer = new LineFramer({ maxLineBytes: max });
        const frames = cut(Buffer.from(lines.join('')), at).flatMap((chunk) => framer.push(chunk));
        expect(frames).toEqual(
          lines.map((line) => (Buffer.byteLength(line) - 1 > max ? { overflow: true } : { line: line.slice(0, -1) })),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('accepts a line of exactly maxLineBytes and refuses one byte more, however it is cut', () => {
    fc.assert(
      fc.property(message, fc.integer({ min: -2, max: 2 }), cuts, (base, delta, at) => {
        const max = Buffer.byteLength(serializeLine({ ...base, pad: '' })) + 16;
        const line = serializeLine(messageOfSize(base, max + delta));
        const framer = new LineFramer({ maxLineBytes: max });
        const frames = cut(Buffer.from(`${line}{"after":1}\n`), at).flatMap((chunk) => framer.push(chunk));
        const first = delta > 0 ? { overflow: true } : { line: line.slice(0, -1) };
        expect(frames).toEqual([first, { line: '{"after":1}' }]);
      }),
      { numRuns: 100 },
    );
  });
});

describe('StdioTransport (properties)', () => {
  it('delivers every message and answers each oversize line with -32600, in order, however the input is cut', async () => {
    const max = 300;
    const sized = fc
      .tuple(message, fc.integer({ min: 0, max: 2 * max }))
      .map(([m, size]) => messageOfSize(m, size) as Record<string, unknown>);
    await fc.assert(
      fc.asyncProperty(fc.array(sized, { maxLength: 6 }), cuts, async (messages, at) => {
        const input = new PassThrough();
        const output = new PassThrough();
        const transport = new StdioTransport(input, output, { maxLineBytes: max });
        const seen: unknown[] = [];
        transport.onmessage = (value) => seen.push(value);
        transport.onerror = (error) => seen.push({ refused: (error as { code?: number }).code });
        transport.start();
        const lines = messages.map(serializeLine);
        for (const chunk of cut(Buffer.from(lines.join('')), at)) input.write(chunk);
        input.end();
        await new Promise((resolve) => input.once('end', resolve));
        await transport.close();
        output.end();

        const tooLarge = (line: string) => Buffer.byteLength(line) - 1 > max;
        expect(seen).toEqual(
          lines.map((line) => (tooLarge(line) ? { refused: ErrorCode.InvalidRequest } : JSON.parse(line))),
        );
        const answers = (output.read() as Buffer | null)?.toString('utf8') ?? '';
        expect(
          answers
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line)),
        ).toEqual(
          // MCP (2025-11-25 on) leaves the id out of an error response whose request id could not be read.
          lines.filter(tooLarge).map(() => ({
            jsonrpc: '2.0',
            error: { code: ErrorCode.InvalidRequest, message: 'Message too large' },
          })),
        );
      }),
      { numRuns: 100 },
    );
  });
});

import { PassThrough, Writable } from 'node:stream';
import { ErrorCode } from '../jsonrpc/jsonrpc.errors';
import { StdioTransport } from './stdio.transport';

const tick = () => new Promise((resolve) => setImmediate(resolve));

function setup(options?: { maxLineBytes?: number }) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: unknown[] = [];
  output.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) written.push(JSON.parse(line));
  });
  const transport = new StdioTransport(input, output, options);
  const messages: unknown[] = [];
  const errors: Error[] = [];
  let closed = 0;
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = () => closed++;
  transport.start();
  return { input, output, transport, written, messages, errors, closed: () => closed };
}

describe('StdioTransport', () => {
  it('delivers each JSON line to onmessage', async () => {
    const t = setup();
    t.input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0",');
    t.input.write(Buffer.from('"method":"x"}\n'));
    await tick();
    expect(t.messages).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'x' },
    ]);
    expect(t.errors).toEqual([]);
  });

  it('answers bad JSON with a parse error and does not deliver it', async () => {
    const t = setup();
    t.input.write('{nope\n');
    await tick();
    expect(t.messages).toEqual([]);
    expect(t.errors).toHaveLength(1);
    expect(t.written).toEqual([{ jsonrpc: '2.0', error: { code: ErrorCode.ParseError, message: 'Parse error' } }]);
  });

  it('answers an oversize line with "Message too large" and keeps going', async () => {
    const t = setup({ maxLineBytes: 16 });
    t.input.write(`${JSON.stringify({ pad: 'x'.repeat(40) })}\n{"a":1}\n`);
    await tick();
    expect(t.written).toEqual([
      { jsonrpc: '2.0', error: { code: ErrorCode.InvalidRequest, message: 'Message too large' } },
    ]);
    expect(t.messages).toEqual([{ a: 1 }]);
  });

  it('sends one line per message', async () => {
    const t = setup();
    await t.transport.send({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb' } });
    await tick();
    expect(t.written).toEqual([{ jsonrpc: '2.0', id: 1, result: { text: 'a\nb' } }]);
  });

  it('writes the lines sent in one turn of the event loop in one write, in order', async () => {
    const writes: string[] = [];
    const output = new Writable({
      write(chunk, _encoding, done) {
        writes.push(String(chunk));
        done();
      },
      writev(chunks, done) {
        writes.push(chunks.map(({ chunk }) => String(chunk)).join(''));
        done();
      },
    });
    const transport = new StdioTransport(new PassThrough(), output);
    transport.start();
    await Promise.all([1, 2, 3].map((id) => transport.send({ jsonrpc: '2.0', id, result: {} })));
    await new Promise((resolve) => setImmediate(resolve));
    await transport.send({ jsonrpc: '2.0', id: 4, result: {} });
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n{"jsonrpc":"2.0","id":3,"result":{}}\n',
      '{"jsonrpc":"2.0","id":4,"result":{}}\n',
    ]);
  });

  it('waits for drain when the output is full', async () => {
    const pending: (() => void)[] = [];
    const output = new Writable({ highWaterMark: 1, write: (_chunk, _enc, cb) => void pending.push(cb) });
    const transport = new StdioTransport(new PassThrough(), output);
    transport.start();
    let sent = false;
    const sending = transport.send({ jsonrpc: '2.0', method: 'x' }).then(() => (sent = true));
    await tick();
    expect(sent).toBe(false);
    pending.shift()?.();
    await sending;
    expect(sent).toBe(true);
  });

  it('shares one wait for drain among the writes that found the output full', async () => {
    const pending: (() => void)[] = [];
    const output = new Writable({ highWaterMark: 1, write: (_chunk, _enc, cb) => void pending.push(cb) });
    const transport = new StdioTransport(new PassThrough(), output);
    transport.start();
    const sends = Array.from({ length: 20 }, (_, id) => transport.send({ jsonrpc: '2.0', id, result: {} }));
    await tick();
    expect(output.listenerCount('drain')).toBe(1);
    while (pending.length) pending.shift()!();
    await Promise.all(sends);
    expect(output.listenerCount('drain')).toBe(0);
  });

  it('with pauseInputWhileOutputFull, reads no more input until a full output drains', async () => {
    const pending: (() => void)[] = [];
    const output = new Writable({ highWaterMark: 1, write: (_chunk, _enc, cb) => void pending.push(cb) });
    const input = new PassThrough();
    const transport = new StdioTransport(input, output, { pauseInputWhileOutputFull: true });
    const messages: unknown[] = [];
    transport.onmessage = (message) => {
      messages.push(message);
      void transport.send({ jsonrpc: '2.0', id: (message as { id: number }).id, result: {} });
    };
    transport.start();
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await tick();
    input.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await tick();
    expect(messages).toHaveLength(1);
    expect(input.isPaused()).toBe(true);
    while (pending.length) pending.shift()!();
    await tick();
    expect(messages).toHaveLength(2);
  });

  it('without pauseInputWhileOutputFull, keeps reading while the output is full', async () => {
    const output = new Writable({ highWaterMark: 1, write: () => undefined });
    const input = new PassThrough();
    const transport = new StdioTransport(input, output);
    const messages: unknown[] = [];
    transport.onmessage = (message) => {
      messages.push(message);
      transport.send({ jsonrpc: '2.0', id: (message as { id: number }).id, result: {} }).catch(() => undefined);
    };
    transport.start();
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await tick();
    input.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await tick();
    expect(messages).toHaveLength(2);
  });

  it("writes with the output's write as it was when the transport was made", async () => {
    const output = new PassThrough();
    const transport = new StdioTransport(new PassThrough(), output);
    transport.start();
    const diverted: unknown[] = [];
    output.write = ((chunk: unknown) => diverted.push(chunk) > 0) as typeof output.write;
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await tick();
    expect(diverted).toEqual([]);
    expect(String(output.read())).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
  });

  it('rejects a send when the output closes before draining', async () => {
    const output = new Writable({ highWaterMark: 1, write: () => undefined });
    const transport = new StdioTransport(new PassThrough(), output);
    transport.start();
    const sending = transport.send({ jsonrpc: '2.0', method: 'x' });
    output.destroy();
    await expect(sending).rejects.toThrow();
  });

  it('closes when the input ends, once, and then refuses to send', async () => {
    const t = setup();
    t.input.end();
    await tick();
    expect(t.closed()).toBe(1);
    await t.transport.close();
    expect(t.closed()).toBe(1);
    await expect(t.transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow('Transport is closed');
  });

  it('stops reading after close', async () => {
    const t = setup();
    await t.transport.close();
    t.input.write('{"a":1}\n');
    await tick();
    expect(t.messages).toEqual([]);
  });

  it('stops delivering lines of the same chunk once a handler closes it', async () => {
    const t = setup();
    t.transport.onmessage = (m) => {
      t.messages.push(m);
      void t.transport.close();
    };
    t.input.write('{"a":1}\n{"a":2}\n');
    await tick();
    expect(t.messages).toEqual([{ a: 1 }]);
  });

  it('reports output errors instead of crashing', async () => {
    const t = setup();
    t.output.emit('error', new Error('EPIPE'));
    expect(t.errors.map((e) => e.message)).toEqual(['EPIPE']);
  });

  it('refuses to start twice', () => {
    expect(() => setup().transport.start()).toThrow('already started');
  });
});

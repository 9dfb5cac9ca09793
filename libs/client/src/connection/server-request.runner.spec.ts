import { JsonRpcResponse } from '@conduit-mcp/core';
import { McpInputRefusal } from './input-responder.interface';
import {
  ServerRequestRunner,
  DEFAULT_ELICITATION_TIMEOUT_MS,
  DEFAULT_HANDLER_TIMEOUT_MS,
  handlerTimeoutMs,
} from './server-request.runner';

describe('ServerRequestRunner (legacy server requests)', () => {
  let replies: JsonRpcResponse[];
  const request = (id: number, method = 'sampling/createMessage') => ({
    jsonrpc: '2.0' as const,
    id,
    method,
    params: {},
  });
  const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeEach(() => {
    replies = [];
  });

  it('runs at most 8 at once: the 9th is refused busy (-32000)', async () => {
    const runner = new ServerRequestRunner(
      8,
      () => 1_000,
      (response) => replies.push(response),
    );
    const release: Array<() => void> = [];
    for (let id = 1; id <= 9; id++)
      runner.run(request(id), () => new Promise((resolve) => release.push(() => resolve({ ok: id }))));
    expect(runner.size).toBe(8);
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 9, error: { code: -32000, message: expect.stringContaining('busy') } },
    ]);
    release.forEach((done) => done());
    await tick();
    expect(replies).toHaveLength(9);
    expect(runner.size).toBe(0);
  });

  it('answers a crash with -32603 and no internals, a refusal with its own code', async () => {
    const runner = new ServerRequestRunner(
      8,
      () => 1_000,
      (response) => replies.push(response),
    );
    runner.run(request(1), async () => {
      throw new Error('secret stack detail');
    });
    runner.run(request(2), async () => {
      throw new McpInputRefusal(-1, 'not now');
    });
    await tick();
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
      { jsonrpc: '2.0', id: 2, error: { code: -1, message: 'not now' } },
    ]);
  });

  it('kills a handler after its timeout (-32603) and aborts its signal', async () => {
    const runner = new ServerRequestRunner(
      8,
      (method) => (method === 'elicitation/create' ? 50 : 20),
      (response) => replies.push(response),
    );
    let aborted = false;
    runner.run(
      request(1),
      (_m, _p, signal) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
    );
    await tick(40);
    expect(aborted).toBe(true);
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Handler timed out after 20 ms' } },
    ]);
  });

  it('aborts a request the server cancels, and sends nothing for it', async () => {
    const runner = new ServerRequestRunner(
      8,
      () => 1_000,
      (response) => replies.push(response),
    );
    let aborted = false;
    runner.run(
      request(1),
      (_m, _p, signal) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
    );
    runner.cancel(1);
    await tick();
    expect(aborted).toBe(true);
    expect(replies).toEqual([]);
  });

  it('answers ping and refuses unknown methods with -32601', () => {
    const runner = new ServerRequestRunner(
      8,
      () => 1_000,
      (response) => replies.push(response),
    );
    runner.run(request(1, 'ping'), async () => ({}));
    runner.run(request(2, 'tools/call'), async () => ({}));
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found: tools/call' } },
    ]);
  });
});

describe('handlerTimeoutMs: how long a handler may answer', () => {
  it('defaults to 60 s, and 5 minutes for an elicitation (a person answers it)', () => {
    expect([DEFAULT_HANDLER_TIMEOUT_MS, DEFAULT_ELICITATION_TIMEOUT_MS]).toEqual([60_000, 300_000]);
    expect(handlerTimeoutMs('sampling/createMessage', {})).toBe(60_000);
    expect(handlerTimeoutMs('roots/list', {})).toBe(60_000);
    expect(handlerTimeoutMs('elicitation/create', {})).toBe(300_000);
  });

  it('takes handlerTimeoutMs and elicitationTimeoutMs from the options', () => {
    const options = { handlerTimeoutMs: 1_000, elicitationTimeoutMs: 2_000 };
    expect(handlerTimeoutMs('sampling/createMessage', options)).toBe(1_000);
    expect(handlerTimeoutMs('elicitation/create', options)).toBe(2_000);
  });
});

import fc from 'fast-check';
import { classifyMessage, parseJson } from './jsonrpc.classifier';
import { ErrorCode } from './jsonrpc.errors';

const invalidReason = (value: unknown) => {
  const result = classifyMessage(value);
  if (result.kind !== 'invalid') throw new Error(`expected invalid, got ${result.kind}`);
  expect(result.error.code).toBe(ErrorCode.InvalidRequest);
  return result;
};

describe('classifyMessage', () => {
  it('classifies requests, notifications and responses', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'ping' })).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    expect(classifyMessage({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x' } })).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x' } },
    });
    expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    expect(classifyMessage({ jsonrpc: '2.0', id: 2, result: {} })).toEqual({
      kind: 'response',
      message: { jsonrpc: '2.0', id: 2, result: {} },
    });
    expect(classifyMessage({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })).toEqual({
      kind: 'response',
      message: { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } },
    });
    expect(classifyMessage({ jsonrpc: '2.0', id: 3, error: { code: 1, message: 'm', data: { a: 1 } } })).toMatchObject({
      kind: 'response',
      message: { error: { data: { a: 1 } } },
    });
  });

  it.each([
    ['a fractional id', 1.5],
    ['an unsafe integer id', 2 ** 53 + 1],
    ['a negative unsafe integer id', -(2 ** 53) - 1],
    ['a NaN id', NaN],
    ['a boolean id', true],
    ['an array id', [1]],
    ['a bigint id', 1n],
  ])('refuses a request with %s, answering with a null id', (_name, id) => {
    const refused = invalidReason({ jsonrpc: '2.0', id, method: 'ping' });
    expect(refused.id).toBeNull();
    expect(refused.error.message).toBe('id must be a string or a safe integer');
  });

  it('accepts string and safe-integer ids, the extremes included', () => {
    for (const id of ['', 'a', 0, -0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
      expect(classifyMessage({ jsonrpc: '2.0', id, method: 'ping' })).toEqual({
        kind: 'request',
        message: { jsonrpc: '2.0', id, method: 'ping' },
      });
    }
  });

  it('refuses responses whose id is neither a string nor a safe integer, and echoes no such id', () => {
    expect(invalidReason({ jsonrpc: '2.0', id: 1.5, result: {} }).id).toBeNull();
    expect(invalidReason({ jsonrpc: '2.0', id: 2 ** 53, error: { code: 1, message: 'x' } }).id).toBeNull();
    expect(invalidReason({ jsonrpc: '1.0', id: 2.5, method: 'ping' }).id).toBeNull();
  });

  it.each([
    ['a missing jsonrpc', { id: 1, method: 'ping' }, 1],
    ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'ping' }, 1],
    ['an empty method', { jsonrpc: '2.0', id: 1, method: '' }, 1],
    ['a numeric method', { jsonrpc: '2.0', id: 1, method: 7 }, 1],
    ['array params', { jsonrpc: '2.0', id: 1, method: 'x', params: [1] }, 1],
    ['null params', { jsonrpc: '2.0', id: 'k', method: 'x', params: null }, 'k'],
    ['a null request id', { jsonrpc: '2.0', id: null, method: 'x' }, null],
    ['an object id', { jsonrpc: '2.0', id: {}, method: 'x' }, null],
    ['an infinite id', { jsonrpc: '2.0', id: Infinity, method: 'x' }, null],
    ['both result and error', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }, 1],
    ['an array result', { jsonrpc: '2.0', id: 1, result: [] }, 1],
    ['a null result id', { jsonrpc: '2.0', id: null, result: {} }, null],
    ['a fractional error code', { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } }, 1],
    ['an error without message', { jsonrpc: '2.0', id: 1, error: { code: 1 } }, 1],
    ['an error response without id', { jsonrpc: '2.0', error: { code: 1, message: 'x' } }, null],
    ['no method, result or error', { jsonrpc: '2.0', id: 4 }, 4],
  ])('rejects %s', (_name, value, id) => {
    expect(invalidReason(value).id).toBe(id);
  });

  it.each([null, undefined, 42, 'x', true, [], [{ jsonrpc: '2.0', method: 'x' }]])('rejects the non-message %p', (v) =>
    expect(invalidReason(v).id).toBeNull(),
  );

  it('never throws on throwing getters, proxies, revoked proxies or cycles', () => {
    const getter = {
      jsonrpc: '2.0',
      id: 9,
      get method(): string {
        throw new Error('boom');
      },
    };
    expect(invalidReason(getter).id).toBe(9);

    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
      },
    );
    expect(invalidReason(trap).id).toBeNull();

    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(invalidReason(proxy).id).toBeNull();

    const cyclic: Record<string, unknown> = { jsonrpc: '2.0', id: 1, method: 'x' };
    cyclic.params = cyclic;
    expect(classifyMessage(cyclic).kind).toBe('request');
  });

  it('builds a fresh message from fields read once', () => {
    let reads = 0;
    const flaky = {
      jsonrpc: '2.0',
      id: 1,
      get method() {
        return reads++ === 0 ? 'ping' : 7;
      },
    };
    const result = classifyMessage(flaky);
    expect(result).toEqual({ kind: 'request', message: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(result.kind === 'request' && result.message).not.toBe(flaky);
  });

  it('never throws for arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(['request', 'notification', 'response', 'invalid']).toContain(classifyMessage(value).kind);
      }),
    );
  });
});

describe('parseJson', () => {
  it('parses valid JSON', () => {
    expect(parseJson('{"a":[1,2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
  });

  it('returns a -32700 error without echoing the input', () => {
    const result = parseJson('{"secret": ');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(ErrorCode.ParseError);
    expect(result.error.message).not.toContain('secret');
  });
});

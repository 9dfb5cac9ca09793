import { ArgumentBounds } from '../../../arguments/argument-bounds';
import { RequestBinding, RequestStateCodec } from './request-state.codec';

describe('RequestStateCodec', () => {
  const binding: RequestBinding = {
    method: 'tools/call',
    digest: RequestStateCodec.digest({ name: 't', arguments: { a: 1, b: [2] } }),
    principal: 'alice',
  };
  const round = { answers: { confirm: { action: 'accept', content: { ok: true } } }, state: { step: 2 } };
  let now = 1_000_000;
  const codec = new RequestStateCodec('a-secret-of-at-least-16-bytes', 60_000, () => now);

  it('opens what it sealed, for the same request and caller', () => {
    expect(codec.open(codec.seal(round, binding), binding)).toEqual(round);
  });

  it('digests params independently of key order and of _meta, inputResponses and requestState', () => {
    const a = RequestStateCodec.digest({
      name: 't',
      arguments: { b: [2], a: 1 },
      _meta: { x: 1 },
      inputResponses: {},
      requestState: 's',
    });
    expect(a).toBe(binding.digest);
    expect(RequestStateCodec.digest({ name: 't', arguments: { a: 2, b: [2] } })).not.toBe(binding.digest);
  });

  it.each([
    ['a changed body', (s: string) => `${s.slice(0, 5)}${s[5] === 'A' ? 'B' : 'A'}${s.slice(6)}`],
    ['a changed tag', (s: string) => `${s}x`],
    ['an appended suffix', (s: string) => `${s}-TAMPERED`],
    ['no tag', (s: string) => s.split('.')[0]],
    ['not a string', () => 42 as unknown as string],
  ])('refuses %s with -32602', (_label, tamper) => {
    expect(() => codec.open(tamper(codec.seal(round, binding)), binding)).toThrow(
      expect.objectContaining({ code: -32602 }),
    );
  });

  it('refuses a state for another method, other params or another caller', () => {
    const sealed = codec.seal(round, binding);
    expect(() => codec.open(sealed, { ...binding, method: 'prompts/get' })).toThrow(/another request or caller/);
    expect(() => codec.open(sealed, { ...binding, digest: 'other' })).toThrow(/another request or caller/);
    expect(() => codec.open(sealed, { ...binding, principal: 'mallory' })).toThrow(/another request or caller/);
    expect(() => codec.open(sealed, { ...binding, principal: undefined })).toThrow(/another request or caller/);
  });

  it('refuses an expired state', () => {
    const sealed = codec.seal(round, binding);
    now += 60_001;
    expect(() => codec.open(sealed, binding)).toThrow(/expired/);
  });

  it('refuses a state sealed with another key', () => {
    const other = new RequestStateCodec('another-secret-16-bytes-long', 60_000, () => now);
    expect(() => codec.open(other.seal(round, binding), binding)).toThrow(/failed verification/);
  });

  it('computes the binding (a digest of the params) only for a state whose tag verifies', () => {
    const bindingOf = jest.fn(() => binding);
    expect(() => codec.open('forged.tag', bindingOf)).toThrow(/failed verification/);
    expect(bindingOf).not.toHaveBeenCalled();
    expect(codec.open(codec.seal(round, binding), bindingOf)).toEqual(round);
    expect(bindingOf).toHaveBeenCalledTimes(1);
  });

  it('refuses to digest params past their bounds, with -32602, well within a second', () => {
    const bounds = ArgumentBounds.forParams(undefined);
    const huge = Object.fromEntries(Array.from({ length: 200_000 }, (_, index) => [`k${index}`, index]));
    const started = performance.now();
    expect(() => RequestStateCodec.digest({ name: 't', arguments: huge }, bounds)).toThrow(
      expect.objectContaining({ code: -32602, message: expect.stringMatching(/^Invalid params: /) }),
    );
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(RequestStateCodec.digest({ name: 't', arguments: { a: 1, b: [2] } }, bounds)).toBe(binding.digest);
  });

  it('refuses a short secret', () => {
    expect(() => new RequestStateCodec('short', 1000)).toThrow(/at least 16 bytes/);
  });
});

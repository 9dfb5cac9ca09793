import type * as Crypto from 'node:crypto';
import { ArgumentBounds } from '../../../arguments/argument-bounds';
import { keyIdOf } from '../../../sealing-key';
import { RequestBinding, RequestStateCodec } from './request-state.codec';

// The module itself (not an import's copy of its bindings), so that a spy on it sees the codec's calls.
const crypto = jest.requireActual<typeof Crypto>('node:crypto');

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

  describe('with a key ring', () => {
    const k1 = 'the-first-key-of-at-least-16-bytes';
    const k2 = Buffer.from('the-second-key-of-at-least-16-bytes');
    const ring = (...keys: Array<string | Buffer>) => new RequestStateCodec(keys, 60_000, () => now);
    const forgedRefusal = { code: -32602, message: 'Invalid requestState: failed verification' };

    /** A state as sealed before key ids: `<body>.<tag>`, the tag an HMAC of the body alone. */
    const keyless = (key: string | Buffer): string => {
      const payload = { v: 1, m: binding.method, d: binding.digest, p: binding.principal, x: now + 60_000 };
      const body = Buffer.from(JSON.stringify({ ...payload, a: round.answers, s: round.state })).toString('base64url');
      return `${body}.${crypto.createHmac('sha256', key).update(body).digest('base64url')}`;
    };

    it('names the sealing key by a short id, not the key', () => {
      const sealed = ring(k2, k1).seal(round, binding);
      expect(sealed).toMatch(/^[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
      expect(sealed.split('.')[0]).toBe(ring(k2).seal(round, binding).split('.')[0]);
      expect(sealed.split('.')[0]).toBe(keyIdOf(k2, 'request-state'));
      expect(sealed.split('.')[0]).not.toBe(ring(k1).seal(round, binding).split('.')[0]);
      expect(sealed).not.toContain(k2.toString('base64url'));
      expect(Buffer.from(sealed.split('.')[1], 'base64url').toString()).not.toContain(k2.toString());
    });

    it('opens a state sealed with [k1] with [k2, k1]: an old key still opens during a rotation', () => {
      expect(ring(k2, k1).open(ring(k1).seal(round, binding), binding)).toEqual(round);
    });

    it('seals with the first key: a state sealed with [k2, k1] opens with [k2] alone', () => {
      expect(ring(k2).open(ring(k2, k1).seal(round, binding), binding)).toEqual(round);
    });

    it('refuses a state naming a key it does not hold exactly as a forged one', () => {
      const fromK2 = ring(k2, k1).seal(round, binding);
      const genuine = ring(k1).seal(round, binding);
      const forged = `${genuine.slice(0, -1)}${genuine.endsWith('A') ? 'B' : 'A'}`;
      expect(() => ring(k1).open(fromK2, binding)).toThrow(expect.objectContaining(forgedRefusal));
      expect(() => ring(k1).open(forged, binding)).toThrow(expect.objectContaining(forgedRefusal));
      expect(() => ring(k1).open(fromK2.split('.').slice(1).join('.'), binding)).toThrow(
        expect.objectContaining(forgedRefusal),
      );
    });

    it('opens a state sealed before key ids with the sealing key only', () => {
      expect(ring(k1).open(keyless(k1), binding)).toEqual(round);
      expect(ring(k1, k2).open(keyless(k1), binding)).toEqual(round);
      expect(() => ring(k2, k1).open(keyless(k1), binding)).toThrow(expect.objectContaining(forgedRefusal));
    });

    it('computes one HMAC to open a state, whichever of eight keys sealed it, and none for an unknown key id', () => {
      const keys = Array.from({ length: 8 }, (_, index) => `ring-key-number-${index}-of-eight`);
      const eight = ring(...keys);
      const byLast = ring(keys[7]).seal(round, binding);
      const unknown = ring(k1).seal(round, binding);
      const hmacs = jest.spyOn(crypto, 'createHmac');
      try {
        expect(eight.open(byLast, binding)).toEqual(round);
        expect(hmacs).toHaveBeenCalledTimes(1);
        hmacs.mockClear();
        expect(() => eight.open(unknown, binding)).toThrow(expect.objectContaining(forgedRefusal));
        expect(hmacs).not.toHaveBeenCalled();
      } finally {
        hmacs.mockRestore();
      }
    });

    it.each([
      ['an empty list', [], 'requestState.secret is an empty list: give 1 to 8 keys'],
      ['a short key', [k1, 'short'], 'requestState.secret[1] must be at least 16 bytes'],
      ['a repeated key', [k1, k2, Buffer.from(k1)], 'requestState.secret[2] repeats requestState.secret[0]'],
      ['nine keys', Array.from({ length: 9 }, (_, i) => `key-${i}-of-at-least-16-bytes`), /lists 9 keys: at most 8/],
    ])('refuses %s, naming requestState.secret', (_label, keys, message) => {
      expect(() => new RequestStateCodec(keys, 1000)).toThrow(message);
    });
  });
});

import fc from 'fast-check';
import { ErrorCode } from '@conduit-mcp/core';
import { RequestBinding, RequestStateCodec, SealedRound } from './request-state.codec';

const NOW = 1_000_000;
const codec = new RequestStateCodec('a-secret-of-at-least-16-bytes', 60_000, () => NOW);
const otherKey = new RequestStateCodec('another-secret-of-16-bytes-or-more', 60_000, () => NOW);

const jsonObject = fc.dictionary(fc.string({ unit: 'binary', maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), {
  maxKeys: 4,
});
const round: fc.Arbitrary<SealedRound> = fc.record({ answers: jsonObject, state: jsonObject });
const binding: fc.Arbitrary<RequestBinding> = fc.record({
  method: fc.constantFrom('tools/call', 'prompts/get', 'resources/read'),
  digest: jsonObject.map((params) => RequestStateCodec.digest(params)),
  principal: fc.option(fc.string({ unit: 'binary', maxLength: 12 }), { nil: undefined }),
});

/** What a JSON value is once written and read back (-0 is the JSON number 0). */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Every way of tampering with a sealed state that a property below tries. */
const tamper = fc.oneof(
  // one character replaced by another (any character, or one that keeps it valid base64url)
  fc
    .tuple(
      fc.nat(),
      fc.oneof(fc.constantFrom(...BASE64URL, '.', '=', '+', '/'), fc.string({ minLength: 1, maxLength: 1 })),
    )
    .map(([at, char]) => (s: string) => {
      const i = at % s.length;
      return s.slice(0, i) + char + s.slice(i + 1);
    }),
  // truncated anywhere
  fc.nat().map((n) => (s: string) => s.slice(0, n % s.length)),
  // a prefix removed
  fc.integer({ min: 1, max: 50 }).map((n) => (s: string) => s.slice(n)),
  // extended with anything
  fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }).map((more) => (s: string) => s + more),
  // one bit of one byte of the payload flipped, the payload re-encoded and the original tag kept
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })).map(([at, bit]) => (s: string) => {
    const [id, body, tag] = s.split('.');
    const bytes = Buffer.from(body, 'base64url');
    bytes[at % bytes.length] ^= 1 << bit;
    return `${id}.${bytes.toString('base64url')}.${tag}`;
  }),
);

const refused = expect.objectContaining({
  code: ErrorCode.InvalidParams,
  message: expect.stringMatching(/^Invalid requestState/),
});

describe('RequestStateCodec (properties)', () => {
  it('opens what it sealed: the same answers and state, for any JSON', () => {
    fc.assert(
      fc.property(round, binding, (sealedRound, bound) => {
        expect(codec.open(codec.seal(sealedRound, bound), bound)).toEqual(wire(sealedRound));
      }),
      { numRuns: 100 },
    );
  });

  it('refuses with -32602 any tampered state: a character changed, truncated, extended or a payload bit flipped', () => {
    fc.assert(
      fc.property(round, binding, tamper, (sealedRound, bound, change) => {
        const sealed = codec.seal(sealedRound, bound);
        const tampered = change(sealed);
        fc.pre(tampered !== sealed);
        expect(() => codec.open(tampered, bound)).toThrow(refused);
        // A binding given as a function (a digest of the request's params) is not computed for a forged state.
        const lazy = jest.fn(() => bound);
        expect(() => codec.open(tampered, lazy)).toThrow(refused);
        expect(lazy).not.toHaveBeenCalled();
      }),
      { numRuns: 200 },
    );
  });

  it('refuses with -32602 a state sealed under another key, or sealed for another request or caller', () => {
    fc.assert(
      fc.property(round, binding, binding, (sealedRound, bound, other) => {
        expect(() => codec.open(otherKey.seal(sealedRound, bound), bound)).toThrow(refused);
        fc.pre(other.method !== bound.method || other.digest !== bound.digest || other.principal !== bound.principal);
        expect(() => codec.open(codec.seal(sealedRound, bound), other)).toThrow(refused);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses with -32602 the tag of one state on the body of another', () => {
    fc.assert(
      fc.property(round, round, binding, (a, b, bound) => {
        const [id, bodyA] = codec.seal(a, bound).split('.');
        const [, bodyB, tagB] = codec.seal(b, bound).split('.');
        fc.pre(bodyA !== bodyB);
        expect(() => codec.open(`${id}.${bodyA}.${tagB}`, bound)).toThrow(refused);
        expect(() => codec.open(`${bodyA}.${tagB}`, bound)).toThrow(refused);
      }),
      { numRuns: 100 },
    );
  });

  it('never throws anything but the -32602 refusal on arbitrary input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.anything()), binding, (input, bound) => {
        expect(() => codec.open(input, bound)).toThrow(refused);
      }),
      { numRuns: 100 },
    );
  });
});

import fc from 'fast-check';
import { MAX_AUTHORIZATION_LENGTH, parseBearerCredentials } from './bearer-credentials.parse';

const B64TOKEN = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,200}=*$/);

describe('parseBearerCredentials (RFC 6750 §2.1)', () => {
  it('reads one Bearer credential, the scheme in any case, with one or more spaces', () => {
    expect(parseBearerCredentials('Bearer abc.def-ghi_~+/==')).toEqual({ kind: 'bearer', token: 'abc.def-ghi_~+/==' });
    expect(parseBearerCredentials('bearer  t0k')).toEqual({ kind: 'bearer', token: 't0k' });
    expect(parseBearerCredentials(['BEARER x'])).toEqual({ kind: 'bearer', token: 'x' });
  });

  it('tells a request without credentials from one with another scheme', () => {
    expect(parseBearerCredentials(undefined)).toEqual({ kind: 'none' });
    expect(parseBearerCredentials([])).toEqual({ kind: 'none' });
    expect(parseBearerCredentials('Basic dXNlcjpwYXNz')).toEqual({ kind: 'other-scheme' });
    expect(parseBearerCredentials('Bearerish x')).toEqual({ kind: 'other-scheme' });
  });

  it.each([
    ['two headers', ['Bearer a', 'Bearer b']],
    ['two credentials in one header', 'Bearer a, Bearer b'],
    ['an empty header', '   '],
    ['a scheme without a token', 'Bearer'],
    ['a token with a space', 'Bearer a b'],
    ['a token with a quote', 'Bearer "a"'],
    ['padding inside the token', 'Bearer a=b'],
    ['an over-long header', `Bearer ${'a'.repeat(MAX_AUTHORIZATION_LENGTH)}`],
    ['not a credential at all', '"Bearer x"'],
  ])('refuses %s as malformed, without echoing it', (_, header) => {
    const parsed = parseBearerCredentials(header as string | string[]);
    expect(parsed.kind).toBe('malformed');
    expect(JSON.stringify(parsed)).not.toMatch(/"a"|Bearer b/);
  });

  it('gives back exactly the token of any well-formed credential', () => {
    fc.assert(
      fc.property(B64TOKEN, fc.integer({ min: 1, max: 3 }), (token, spaces) => {
        expect(parseBearerCredentials(`Bearer${' '.repeat(spaces)}${token}`)).toEqual({ kind: 'bearer', token });
      }),
    );
  });

  it('never throws, whatever the header holds', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 })), (header) => {
        expect(['none', 'bearer', 'other-scheme', 'malformed']).toContain(parseBearerCredentials(header).kind);
      }),
    );
  });
});

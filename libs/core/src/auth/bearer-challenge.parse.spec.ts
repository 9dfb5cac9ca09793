import { formatBearerChallenge } from './bearer-challenge.format';
import { parseBearerChallenge } from './bearer-challenge.parse';

describe('parseBearerChallenge', () => {
  it('reads what formatBearerChallenge writes', () => {
    const challenge = {
      realm: 'mcp',
      error: 'insufficient_scope' as const,
      errorDescription: 'Needs notes:write',
      scope: ['notes:read', 'notes:write'],
      resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
    };
    expect(parseBearerChallenge(formatBearerChallenge(challenge))).toEqual(challenge);
  });

  it('reads token values, escapes, spacing and case-insensitive names', () => {
    expect(
      parseBearerChallenge('bearer Error = invalid_token ,  scope="a\\xb c", error_description="say \\"no\\""'),
    ).toEqual({
      error: 'invalid_token',
      errorDescription: 'say "no"',
      scope: ['axb', 'c'],
    });
  });

  it('finds the Bearer challenge among others in one header', () => {
    expect(parseBearerChallenge('Basic realm="x", Bearer scope="mcp:basic", DPoP algs="ES256"')).toEqual({
      scope: ['mcp:basic'],
    });
    expect(parseBearerChallenge('Negotiate abc==, Bearer error="invalid_token"')).toEqual({ error: 'invalid_token' });
  });

  it('a bare Bearer is an empty challenge; no Bearer, an empty or unreadable header is undefined', () => {
    expect(parseBearerChallenge('Bearer')).toEqual({});
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseBearerChallenge('')).toBeUndefined();
    expect(parseBearerChallenge(undefined)).toBeUndefined();
    expect(parseBearerChallenge('"unterminated')).toBeUndefined();
    expect(parseBearerChallenge(`Bearer realm="${'x'.repeat(9000)}"`)).toBeUndefined();
  });

  it('drops an error RFC 6750 does not define, and anything in scope that is not a scope token', () => {
    expect(parseBearerChallenge('Bearer error="server_melted", scope="ok  also-ok"')).toEqual({
      scope: ['ok', 'also-ok'],
    });
  });

  it('reads the challenge of another scheme with the same parameters (DPoP)', () => {
    const header = 'Bearer realm="x", DPoP error="use_dpop_nonce", error_description="Resource server requires nonce"';
    expect(parseBearerChallenge(header, 'DPoP')).toEqual({
      error: 'use_dpop_nonce',
      errorDescription: 'Resource server requires nonce',
    });
    expect(parseBearerChallenge(header)).toEqual({ realm: 'x' });
    expect(parseBearerChallenge('Bearer realm="x"', 'DPoP')).toBeUndefined();
  });

  it('keeps the first of a repeated parameter', () => {
    expect(parseBearerChallenge('Bearer scope="first", scope="second"')).toEqual({ scope: ['first'] });
  });
});

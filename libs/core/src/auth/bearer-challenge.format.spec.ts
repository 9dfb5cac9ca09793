import fc from 'fast-check';
import { validateHeaderValue } from 'node:http';
import { formatBearerChallenge } from './bearer-challenge.format';

const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const SCOPE = fc.stringMatching(/^[\x21\x23-\x5b\x5d-\x7e]{1,20}$/);

describe('formatBearerChallenge (RFC 6750 §3, RFC 9728 §5.1)', () => {
  it('names no error for a request without credentials, only where the metadata is', () => {
    expect(formatBearerChallenge({ resourceMetadata: METADATA })).toBe(`Bearer resource_metadata="${METADATA}"`);
    expect(formatBearerChallenge()).toBe('Bearer');
  });

  it('puts the parameters in a fixed order, each quoted; a scope list space-separated, without repeats', () => {
    expect(
      formatBearerChallenge({
        resourceMetadata: METADATA,
        scope: ['notes:read', 'notes:write', 'notes:read'],
        errorDescription: 'The scopes granted do not allow this call',
        error: 'insufficient_scope',
        realm: 'mcp',
      }),
    ).toBe(
      'Bearer realm="mcp", error="insufficient_scope", error_description="The scopes granted do not allow this call", ' +
        `scope="notes:read notes:write", resource_metadata="${METADATA}"`,
    );
    expect(formatBearerChallenge({ error: 'invalid_token', scope: [] })).toBe('Bearer error="invalid_token"');
  });

  it.each([
    ['a quote in a description', { errorDescription: 'say "no"' }],
    ['a backslash in a realm', { realm: 'a\\b' }],
    ['a line break in the metadata URL', { resourceMetadata: 'https://x/\r\nSet-Cookie: a=b' }],
    ['a scope with a space', { scope: ['notes read'] }],
    ['an empty scope', { scope: [''] }],
  ])('throws rather than send %s', (_, challenge) => {
    expect(() => formatBearerChallenge(challenge)).toThrow(/Invalid/);
  });

  it('always makes a valid header value that reads back the scopes and the error it was given', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            error: fc.constantFrom('invalid_request' as const, 'invalid_token' as const, 'insufficient_scope' as const),
            scope: fc.array(SCOPE, { minLength: 1, maxLength: 5 }),
            errorDescription: fc.stringMatching(/^[\x20\x21\x23-\x5b\x5d-\x7e]{0,40}$/),
          },
          { requiredKeys: [] },
        ),
        (challenge) => {
          const value = formatBearerChallenge({ ...challenge, resourceMetadata: METADATA });
          expect(() => validateHeaderValue('WWW-Authenticate', value)).not.toThrow();
          const scope = /(?:^Bearer |, )scope="([^"]*)"/.exec(value)?.[1];
          expect(scope?.split(' ')).toEqual(challenge.scope ? [...new Set(challenge.scope)] : undefined);
          expect(/error="([^"]*)"/.exec(value)?.[1]).toBe(challenge.error);
        },
      ),
    );
  });
});

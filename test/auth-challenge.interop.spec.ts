// The bearer challenges this project formats, read by the official SDK 1.x client's own parser (what a client does
// with a 401 or 403 from the server).
import { formatBearerChallenge, protectedResourceMetadataUrls } from '@conduit-mcp/core';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';

const { pathForm } = protectedResourceMetadataUrls('http://127.0.0.1:3000/mcp');
const read = (value: string) =>
  extractWWWAuthenticateParams(new Response(null, { status: 401, headers: { 'WWW-Authenticate': value } }));

describe('bearer challenges as the SDK 1.x client reads them', () => {
  it('a 401 without credentials: where the metadata is, no error', () => {
    expect(read(formatBearerChallenge({ resourceMetadata: pathForm }))).toEqual({
      resourceMetadataUrl: new URL(pathForm),
      scope: undefined,
      error: undefined,
    });
  });

  it('a 401 for a bad token: invalid_token, the metadata, a description the client ignores', () => {
    const value = formatBearerChallenge({
      error: 'invalid_token',
      errorDescription: 'The access token is invalid',
      resourceMetadata: pathForm,
    });
    expect(read(value)).toEqual({ resourceMetadataUrl: new URL(pathForm), scope: undefined, error: 'invalid_token' });
  });

  it('a 403 step-up: insufficient_scope and every scope needed, in one challenge', () => {
    const value = formatBearerChallenge({
      error: 'insufficient_scope',
      scope: ['notes:read', 'notes:write'],
      resourceMetadata: pathForm,
    });
    expect(read(value)).toEqual({
      resourceMetadataUrl: new URL(pathForm),
      scope: 'notes:read notes:write',
      error: 'insufficient_scope',
    });
  });
});

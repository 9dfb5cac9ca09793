import { resolveAuthOptions, tokenVerifierOf } from './auth-options.resolve';
import { McpBearerAuthenticator } from './bearer.authenticator';
import { McpAuthOptions } from './mcp-auth-options.interface';
import type { TransportFacts } from '../dispatch/transport-facts.interface';

const facts = (authorization?: string) =>
  ({ headers: authorization === undefined ? {} : { authorization } }) as unknown as TransportFacts;

function authenticator(extra: Partial<McpAuthOptions> = {}) {
  const options: McpAuthOptions = {
    resource: 'https://mcp.example.com/tenant/mcp',
    authorizationServers: ['https://idp.example.com'],
    token: {
      type: 'custom',
      verify: (token) =>
        token === 'good'
          ? { subject: 'ann', scopes: ['a'], claims: { sub: 'ann' }, token: 'from-verifier' }
          : token === 'service'
            ? { clientId: 'svc', scopes: [], claims: {} }
            : token === 'nobody'
              ? { scopes: ['a'], claims: {} }
              : undefined,
    },
    ...extra,
  };
  return new McpBearerAuthenticator(resolveAuthOptions('unit', options), tokenVerifierOf(options));
}

const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp';

describe('McpBearerAuthenticator', () => {
  it('passes a valid token on as ctx.auth, without the token unless exposeToken', async () => {
    expect(await authenticator().authenticate(facts('Bearer good'))).toEqual({
      ok: true,
      auth: { subject: 'ann', scopes: ['a'], claims: { sub: 'ann' } },
    });
    expect(await authenticator({ exposeToken: true }).authenticate(facts('Bearer good'))).toEqual({
      ok: true,
      auth: { subject: 'ann', scopes: ['a'], claims: { sub: 'ann' }, token: 'good' },
    });
  });

  it('challenges each refusal as RFC 6750 says, always naming the metadata of the resource', async () => {
    const challenge = async (authorization?: string) => {
      const result = await authenticator().authenticate(facts(authorization));
      return result.ok ? undefined : [result.status, result.challenge];
    };
    expect(await challenge()).toEqual([401, `Bearer resource_metadata="${METADATA}"`]);
    expect(await challenge('Bearer a, Bearer b')).toEqual([
      401,
      `Bearer error="invalid_request", error_description="The Authorization header is malformed", resource_metadata="${METADATA}"`,
    ]);
    expect(await challenge('Bearer bad')).toEqual([
      401,
      `Bearer error="invalid_token", error_description="The access token is invalid", resource_metadata="${METADATA}"`,
    ]);
  });

  it('takes a token naming only its client, and refuses one naming nobody (nothing to bind a session to)', async () => {
    expect(await authenticator().authenticate(facts('Bearer service'))).toMatchObject({
      ok: true,
      auth: { clientId: 'svc' },
    });
    expect(await authenticator().authenticate(facts('Bearer nobody'))).toMatchObject({
      ok: false,
      status: 401,
      challenge: expect.stringContaining('error="invalid_token"'),
    });
  });

  it('derives the metadata and where it is served from the resource', () => {
    const resolved = resolveAuthOptions('unit', {
      resource: 'https://mcp.example.com/tenant/mcp',
      authorizationServers: ['https://idp.example.com'],
      token: { type: 'custom', verify: () => undefined },
      rootMetadata: false,
    });
    expect(resolved.metadataUrl).toBe(METADATA);
    expect(resolved.metadataPaths).toEqual(['/.well-known/oauth-protected-resource/tenant/mcp']);
    expect(resolved.metadata).toEqual({
      resource: 'https://mcp.example.com/tenant/mcp',
      authorization_servers: ['https://idp.example.com'],
      bearer_methods_supported: ['header'],
    });
  });
});

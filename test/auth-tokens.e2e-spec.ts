// Real access tokens from a real authorization server (the demo's oidc-provider, in a child process) against
// McpModule.forRoot({ auth: { token: { type: 'jwt' } } }) on the server mount, as Express routes and as Fastify
// routes: tokens from the authorization code flow with PKCE, client credentials and refresh are accepted and become
// ctx.auth; tokens forged with the server's own key but wrong in one way each are refused 401 invalid_token.
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { CryptoKey, JWTPayload, SignJWT, decodeJwt, generateKeyPair } from 'jose';
import { McpCtx, McpModule, McpRequestContext, McpTool } from '@conduit-mcp/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHttpApp, freePort, HTTP_MOUNTS } from './support/http-adapters';
import { AuthServerFixture, startAuthServer } from './support/oidc-as.fixture';

@Injectable()
class WhoTools {
  @McpTool({ name: 'whoami', description: 'Who the token speaks for' })
  whoami(@McpCtx() ctx: McpRequestContext) {
    return JSON.stringify(ctx.auth ?? null);
  }
}

const now = () => Math.floor(Date.now() / 1000);
const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe.each(HTTP_MOUNTS)('tokens of a real authorization server (%s adapter, %s mount)', (adapter, mount) => {
  let as: AuthServerFixture;
  let app: INestApplication;
  let base: string;
  let resource: string;
  let strangerKey: CryptoKey;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    resource = `${base}/mcp`;
    // The resource must be known to the authorization server (its only audience) before either starts.
    [as, { privateKey: strangerKey }] = await Promise.all([startAuthServer({ resource }), generateKeyPair('ES256')]);
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'notes',
          version: '1.0.0',
          http: { mount },
          auth: { resource, authorizationServers: [as.issuer], token: { type: 'jwt' } },
        }),
      ],
      providers: [WhoTools],
    })
    class ProtectedModule {}
    app = await createHttpApp(ProtectedModule, adapter);
    await app.listen(port, '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
    await as?.stop();
  });

  /** ctx.auth as the whoami tool saw it, called by the SDK 1.x client with the token on every request. */
  async function whoami(token: string): Promise<unknown> {
    const client = new Client({ name: 'notes-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(resource), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      return JSON.parse((result.content as Array<{ text: string }>)[0].text);
    } finally {
      await client.close();
    }
  }

  const initialize = (headers: Record<string, string> = {}) =>
    fetch(resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });

  const metadataUrl = () => `${base}/.well-known/oauth-protected-resource/mcp`;

  /** A token signed with the authorization server's real key: right in every way but what `claims`/`header` change. */
  function forge(claims: JWTPayload = {}, header: Record<string, unknown> = {}, key: CryptoKey = as.signingKey) {
    return new SignJWT({
      iss: as.issuer,
      aud: resource,
      sub: 'demo',
      client_id: as.publicClient.clientId,
      scope: 'notes:read',
      iat: now(),
      exp: now() + 300,
      jti: 'forged',
      ...claims,
    })
      .setProtectedHeader({ alg: as.alg, typ: 'at+jwt', kid: as.kid, ...header })
      .sign(key);
  }

  it('accepts a token of the authorization code flow with PKCE: ctx.auth is the user, the client, the scopes, the claims', async () => {
    const tokens = await as.authorizationCode({ scope: 'notes:read notes:write' });
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'notes:read notes:write' });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ iss: as.issuer, aud: resource, sub: 'demo', client_id: as.publicClient.clientId });
    expect(await whoami(tokens.access_token)).toEqual({
      subject: 'demo',
      clientId: as.publicClient.clientId,
      scopes: ['notes:read', 'notes:write'],
      claims,
    });
  });

  it('accepts a client credentials token: oidc-provider makes the client its own subject', async () => {
    const tokens = await as.clientCredentials('notes:read admin');
    expect(tokens.refresh_token).toBeUndefined();
    const claims = decodeJwt(tokens.access_token);
    expect(claims.sub).toBe(as.serviceClient.clientId);
    expect(await whoami(tokens.access_token)).toEqual({
      subject: as.serviceClient.clientId,
      clientId: as.serviceClient.clientId,
      scopes: ['notes:read', 'admin'],
      claims,
    });
  });

  it('accepts a refreshed token; the refresh token is rotated and the old one no longer works', async () => {
    const first = await as.authorizationCode({ scope: 'notes:read' });
    const refreshed = await as.refresh(first.refresh_token!);
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect(refreshed.access_token).not.toBe(first.access_token);
    const claims = decodeJwt(refreshed.access_token);
    expect(claims).toMatchObject({ aud: resource, sub: 'demo', scope: 'notes:read' });
    expect(await whoami(refreshed.access_token)).toEqual({
      subject: 'demo',
      clientId: as.publicClient.clientId,
      scopes: ['notes:read'],
      claims,
    });
    await expect(as.refresh(first.refresh_token!)).rejects.toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('accepts a token it did not see issued when it is signed with the server’s key and right in every way', async () => {
    // The control for the forgeries below: each is refused for the one thing it changes, not for how it was made.
    expect(await whoami(await forge())).toMatchObject({ subject: 'demo', scopes: ['notes:read'] });
  });

  it.each([
    ['expired', () => forge({ iat: now() - 600, exp: now() - 120 })],
    ['for another audience', () => forge({ aud: 'http://127.0.0.1:1/mcp' })],
    ['from another issuer', () => forge({ iss: 'http://127.0.0.1:1' })],
    [
      'unsigned (alg none)',
      async () => {
        const [, payload] = (await forge()).split('.');
        return `${encode({ alg: 'none', typ: 'at+jwt', kid: as.kid })}.${payload}.`;
      },
    ],
    ['signed by a key not in the server’s key set (unknown kid)', () => forge({}, { kid: 'stranger' }, strangerKey)],
    [
      'with a tampered signature',
      async () => {
        const [header, payload, signature] = (await forge()).split('.');
        const bytes = Buffer.from(signature, 'base64url');
        bytes[bytes.length >> 1] ^= 0x01;
        return `${header}.${payload}.${bytes.toString('base64url')}`;
      },
    ],
  ])('refuses a token %s: 401 invalid_token, naming the resource metadata', async (_, make) => {
    const response = await initialize({ authorization: `Bearer ${await make()}` });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate');
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
    expect(await response.json()).toMatchObject({ error: { code: -32000 } });
  });

  it('answers a request without a token 401 with the resource metadata and no error', async () => {
    const response = await initialize();
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate')!;
    expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
    expect(challenge).not.toContain('error=');
  });

  it('is not given a token for another resource: the authorization server refuses it (invalid_target)', async () => {
    const other = 'http://127.0.0.1:1/mcp';
    await expect(as.clientCredentials('notes:read', { resource: other })).rejects.toMatchObject({
      status: 400,
      error: 'invalid_target',
    });
    // At the authorization endpoint the refusal comes back through the redirect URI.
    await expect(as.authorizationCode({ scope: 'notes:read', resource: other })).rejects.toMatchObject({
      error: 'invalid_target',
    });
  });
});

// What later suites lean on besides JWTs: opaque tokens, introspection and revocation (the introspection verifier),
// open registration and browse() with the consent prompt the SDK 2.x client forces (its OAuth client providers).
describe('the authorization server fixture, opaque tokens', () => {
  const resource = 'http://127.0.0.1:1/mcp';
  let as: AuthServerFixture;

  beforeAll(async () => {
    as = await startAuthServer({ resource, format: 'opaque' });
  });
  afterAll(() => as?.stop());

  it('issues opaque tokens that introspect active for the resource until revoked', async () => {
    const { access_token: token } = await as.clientCredentials('notes:write');
    expect(token).not.toContain('.');
    expect(await as.introspect(token)).toMatchObject({
      active: true,
      aud: resource,
      iss: as.issuer,
      client_id: as.serviceClient.clientId,
      scope: 'notes:write',
      token_type: 'Bearer',
    });
    await as.revoke(token, as.serviceClient);
    expect(await as.introspect(token)).toEqual({ active: false });
    expect(await as.introspect('not-a-token')).toEqual({ active: false });
  });

  it('registers public clients openly (CORS), and signs them in with consent approved even when forced', async () => {
    const preflight = await fetch(`${as.issuer}/reg`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const refused = await fetch(`${as.issuer}/reg`, {
      method: 'POST',
      headers: { origin: 'http://localhost:6274', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(await refused.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    const redirectUri = 'http://127.0.0.1:2/callback';
    const client = await as.register({
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // The SDK 2.x client registers the scope it then asks for, offline_access included.
      scope: 'notes:read notes:write offline_access',
    });
    expect(client.client_id).toEqual(expect.any(String));
    expect(client.client_secret).toBeUndefined();

    const url = new URL(`${as.issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'notes:read offline_access',
      prompt: 'consent',
      state: 'xyz',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource,
    }).toString();
    const callback = await as.browse(url);
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    expect(callback.searchParams.get('state')).toBe('xyz');
    expect(callback.searchParams.get('iss')).toBe(as.issuer);
    await expect(as.browse(url, { user: 'demo', password: 'wrong' })).rejects.toThrow(/answered 401/);
  });
});

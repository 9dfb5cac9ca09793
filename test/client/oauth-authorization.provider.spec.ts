import { createHash, generateKeyPairSync } from 'node:crypto';
import { jwtVerify } from 'jose';
import { McpAuthorizationError } from '../../libs/client/src/errors/mcp-authorization.error';
import type { McpOAuthOptions } from '../../libs/client/src/auth/mcp-oauth.options';
import { McpStoredTokens, McpTokenKey, MemoryTokenStore } from '../../libs/client/src/auth/mcp-token.store';
import { OAuthAuthorizationProvider } from '../../libs/client/src/auth/oauth-authorization.provider';
import { HttpClientSession, McpHttpRefusal } from '../../libs/client/src/transports/http-client.session';
import {
  AuthorizationServerStandIn,
  StandInAuthorizationServer,
  StandInAuthorizationServerSettings,
  StandInClient,
  StandInOptions,
} from '../support/authorization-server.stand-in';

// A loopback redirect URI that is never visited: the stand-in's browse() stops at the redirect to it.
const REDIRECT_URI = 'http://127.0.0.1:1/callback';

/** The default store, with every set and delete it is asked for. */
class RecordingTokenStore extends MemoryTokenStore {
  readonly calls: Array<{ op: 'set' | 'delete'; key: McpTokenKey; tokens?: McpStoredTokens }> = [];

  override set(key: McpTokenKey, tokens: McpStoredTokens): void {
    this.calls.push({ op: 'set', key, tokens });
    super.set(key, tokens);
  }

  override delete(key: McpTokenKey): void {
    this.calls.push({ op: 'delete', key });
    super.delete(key);
  }
}

describe('OAuthAuthorizationProvider against a stand-in authorization server', () => {
  let stand: AuthorizationServerStandIn | undefined;
  let as: StandInAuthorizationServer;

  afterEach(async () => {
    await stand?.close();
    stand = undefined;
  });

  /** The stand-in, with one authorization server `main` (the resource's). */
  async function setUp(
    settings: Partial<StandInAuthorizationServerSettings> & { clients?: StandInClient[] } = {},
    options: StandInOptions = {},
  ): Promise<AuthorizationServerStandIn> {
    stand = await AuthorizationServerStandIn.start(options);
    as = stand.addAuthorizationServer('main', settings);
    return stand;
  }

  function provider(options: Partial<McpOAuthOptions> = {}): OAuthAuthorizationProvider {
    return new OAuthAuthorizationProvider(new URL(stand!.resourceUrl), {
      allowInsecureLoopback: true,
      redirectUri: REDIRECT_URI,
      onAuthorizationUrl: (url) => stand!.browse(url),
      ...options,
      clientName: 'test',
    });
  }

  function refusal(
    status: 401 | 403 = 401,
    challenge: string | undefined = stand!.challenge(),
    sent?: Record<string, string>,
  ): McpHttpRefusal {
    return { status, challenge, url: new URL(stand!.resourceUrl), sent, responseHeaders: new Headers() };
  }

  /** The headers `p` adds to a request to the resource (not a promise when it has nothing to fetch first). */
  function headersOf(p: OAuthAuthorizationProvider): ReturnType<OAuthAuthorizationProvider['headers']> {
    return p.headers(new URL(stand!.resourceUrl), 'POST');
  }

  async function bearerOf(p: OAuthAuthorizationProvider): Promise<string | undefined> {
    return (await headersOf(p))?.Authorization;
  }

  /** The resource refusing, as invalid, the token `p` sends now. */
  async function tokenRefusal(p: OAuthAuthorizationProvider): Promise<McpHttpRefusal> {
    return refusal(401, stand!.challenge({ error: 'invalid_token' }), await headersOf(p));
  }

  /** A provider once it has answered a first 401 (with `challenge`, else the stand-in's plain one). */
  async function authorized(
    options: Partial<McpOAuthOptions> = {},
    challenge?: string,
  ): Promise<OAuthAuthorizationProvider> {
    const p = provider(options);
    await p.unauthorized(refusal(401, challenge));
    return p;
  }

  /** The same with a recording token store. */
  async function authorizedWithStore(): Promise<{ p: OAuthAuthorizationProvider; store: RecordingTokenStore }> {
    const store = new RecordingTokenStore();
    return { p: await authorized({ tokenStore: store }), store };
  }

  async function rejection(promise: unknown): Promise<Error> {
    try {
      await promise;
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected a rejection');
  }

  /** No token, refresh token, code or client secret the stand-in handed out (nor `extra`) is in the error's chain. */
  function expectNoSecretIn(error: Error, extra: string[] = []): void {
    const messages: string[] = [];
    for (let e: unknown = error; e instanceof Error; e = e.cause) messages.push(e.message);
    const secrets = [...stand!.secrets(), ...extra];
    expect(secrets.length).toBeGreaterThan(0);
    for (const message of messages) for (const secret of secrets) expect(message).not.toContain(secret);
  }

  const key = () => ({ issuer: as.issuer, resource: stand!.resourceUrl });
  const kinds = () => stand!.requests.map((r) => r.kind);

  describe('the authorization code grant', () => {
    it('on a first 401: resource metadata, AS metadata, a registration, an authorization with PKCE S256, a token for the resource', async () => {
      await setUp();
      const p = provider();
      expect(headersOf(p)).toBeUndefined();

      await expect(p.unauthorized(refusal())).resolves.toBe(true);

      expect(kinds()).toEqual(['resource-metadata', 'as-metadata', 'registration', 'authorization', 'token']);
      const [registration] = stand!.requestsOf('registration', as.issuer);
      expect(registration.json).toEqual({
        client_name: 'test',
        application_type: 'native',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      const [authorization] = stand!.requestsOf('authorization', as.issuer);
      expect(authorization.params).toMatchObject({
        response_type: 'code',
        client_id: 'dcr-main-1',
        redirect_uri: REDIRECT_URI,
        code_challenge_method: 'S256',
        resource: stand!.resourceUrl,
        scope: 'read offline_access',
      });
      expect(authorization.params.state).toMatch(/^[\w-]{32,}$/);
      const [token] = stand!.requestsOf('token', as.issuer);
      expect(token.params).toMatchObject({
        grant_type: 'authorization_code',
        client_id: 'dcr-main-1',
        redirect_uri: REDIRECT_URI,
        resource: stand!.resourceUrl,
      });
      expect(createHash('sha256').update(token.params.code_verifier).digest('base64url')).toBe(
        authorization.params.code_challenge,
      );
      expect(token.status).toBe(200);
      expect(await headersOf(p)).toEqual({
        Authorization: `Bearer ${stand!.issued[0].accessToken}`,
      });
    });

    it("asks for the challenge's scopes over the resource's; no scope parameter when none is known", async () => {
      await setUp();
      await provider().unauthorized(refusal(401, stand!.challenge({ scope: ['write'] })));
      expect(stand!.requestsOf('authorization')[0].params.scope).toBe('write offline_access');
      await stand!.close();

      await setUp({ scopesSupported: ['read'] }, { resourceScopes: undefined });
      await provider().unauthorized(refusal());
      expect(stand!.requestsOf('authorization')[0].params).not.toHaveProperty('scope');
      expect(stand!.requestsOf('token')[0].status).toBe(200);
    });

    it('registers a web application for a redirect URI that is not loopback', async () => {
      await setUp();
      const redirectUri = 'https://app.example.com/oauth/callback';
      await provider({ redirectUri }).unauthorized(refusal());
      expect(stand!.requestsOf('registration')[0].json).toMatchObject({
        application_type: 'web',
        redirect_uris: [redirectUri],
      });
      expect(stand!.requestsOf('token')[0].params.redirect_uri).toBe(redirectUri);
    });
  });

  describe('client identity', () => {
    const clientId = 'app-1.x_y*z';
    const clientSecret = 'p-w.d_ x+y:z~';

    it('a pre-registered client authenticates with Basic, form-encoded as WHATWG does (`-` `.` `_` `*` as they are)', async () => {
      await setUp({ clients: [{ clientId, clientSecret }] });
      const p = provider({ clientId, clientSecret });
      await expect(p.unauthorized(refusal())).resolves.toBe(true);

      expect(stand!.requestsOf('registration')).toHaveLength(0);
      expect(stand!.requestsOf('authorization')[0].params.client_id).toBe(clientId);
      const [token] = stand!.requestsOf('token');
      const basic = Buffer.from('app-1.x_y*z:p-w.d_+x%2By%3Az%7E').toString('base64');
      expect(token.headers.authorization).toBe(`Basic ${basic}`);
      expect(token.params).not.toHaveProperty('client_secret');
      expect(token.status).toBe(200);
    });

    it('sends the secret in the form when the server supports only client_secret_post', async () => {
      await setUp({ clients: [{ clientId, clientSecret }], authMethods: ['client_secret_post'] });
      await expect(provider({ clientId, clientSecret }).unauthorized(refusal())).resolves.toBe(true);
      const [token] = stand!.requestsOf('token');
      expect(token.headers.authorization).toBeUndefined();
      expect(token.params).toMatchObject({ client_id: clientId, client_secret: clientSecret });
      expect(token.status).toBe(200);
    });

    it('sends pre-registered credentials to their `issuer` only: another authorization server gets a registration', async () => {
      await setUp({ clients: [{ clientId, clientSecret }] });
      const p = provider({ clientId, clientSecret, issuer: `${stand!.origin}/elsewhere` });
      await expect(p.unauthorized(refusal())).resolves.toBe(true);

      expect(stand!.requestsOf('registration')).toHaveLength(1);
      expect(stand!.requestsOf('authorization')[0].params.client_id).toBe('dcr-main-1');
      const everything = JSON.stringify(stand!.requests.map((r) => [r.url, r.headers, r.body]));
      expect(everything).not.toContain('app-1');
      expect(everything).not.toContain(encodeURIComponent(clientSecret));
      expect(everything).not.toContain(Buffer.from(`${clientId}:`).toString('base64').slice(0, 8));

      await stand!.close();
      await setUp({ clients: [{ clientId, clientSecret }] });
      await expect(provider({ clientId, clientSecret, issuer: as.issuer }).unauthorized(refusal())).resolves.toBe(true);
      expect(stand!.requestsOf('registration')).toHaveLength(0);
      expect(stand!.requestsOf('authorization')[0].params.client_id).toBe(clientId);
    });

    it('uses the client ID metadata document URL as client id only where the server supports CIMD', async () => {
      const clientMetadataUrl = 'https://client.example.com/oauth/metadata.json';
      await setUp({ cimd: true });
      await expect(provider({ clientMetadataUrl }).unauthorized(refusal())).resolves.toBe(true);
      expect(stand!.requestsOf('registration')).toHaveLength(0);
      expect(stand!.requestsOf('authorization')[0].params.client_id).toBe(clientMetadataUrl);
      expect(stand!.requestsOf('token')[0].params.client_id).toBe(clientMetadataUrl);
      expect(stand!.requestsOf('token')[0].status).toBe(200);
      await stand!.close();

      await setUp({ cimd: false });
      await expect(provider({ clientMetadataUrl }).unauthorized(refusal())).resolves.toBe(true);
      expect(stand!.requestsOf('registration')).toHaveLength(1);
      expect(stand!.requestsOf('authorization')[0].params.client_id).toBe('dcr-main-1');
    });

    it('private_key_jwt: a client assertion signed with the PEM key, iss and sub the client id', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      await setUp({ clients: [{ clientId: 'signed-client', publicKey }] });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      await expect(provider({ clientId: 'signed-client', privateKey: pem }).unauthorized(refusal())).resolves.toBe(
        true,
      );

      const [token] = stand!.requestsOf('token');
      expect(token.status).toBe(200);
      expect(token.headers.authorization).toBeUndefined();
      expect(token.params).not.toHaveProperty('client_secret');
      expect(token.params.client_assertion_type).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      const { payload, protectedHeader } = await jwtVerify(token.params.client_assertion, publicKey);
      expect(protectedHeader.alg).toBe('ES256');
      expect(payload).toMatchObject({ iss: 'signed-client', sub: 'signed-client', aud: as.issuer });
      await expect(jwtVerify(token.params.client_assertion, other.publicKey)).rejects.toThrow();
    });
  });

  describe('the client credentials grant', () => {
    it('asks the token endpoint for the resource and scope, with no authorization request', async () => {
      await setUp({ clients: [{ clientId: 'service', clientSecret: 'service-secret' }] });
      const p = provider({
        grant: 'client_credentials',
        clientId: 'service',
        clientSecret: 'service-secret',
        redirectUri: undefined,
        onAuthorizationUrl: undefined,
      });
      await expect(p.unauthorized(refusal(401, stand!.challenge({ scope: ['read', 'write'] })))).resolves.toBe(true);

      expect(stand!.requestsOf('authorization')).toHaveLength(0);
      const [token] = stand!.requestsOf('token');
      // offline_access is for a person's authorization: not asked for although the server lists it.
      expect(token.params).toEqual({
        grant_type: 'client_credentials',
        resource: stand!.resourceUrl,
        scope: 'read write',
      });
      expect(token.status).toBe(200);
      expect(await bearerOf(p)).toBe(`Bearer ${stand!.issued[0].accessToken}`);
    });

    it('registers a confidential client and authenticates with its credentials as WHATWG form-encodes them', async () => {
      await setUp();
      const p = provider({ grant: 'client_credentials', redirectUri: undefined, onAuthorizationUrl: undefined });
      await expect(p.unauthorized(refusal())).resolves.toBe(true);

      const [registration] = stand!.requestsOf('registration');
      expect(registration.json).toEqual({
        client_name: 'test',
        application_type: 'web',
        grant_types: ['client_credentials'],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      });
      const registered = as.clients.get('dcr-main-1')!;
      const [token] = stand!.requestsOf('token');
      const basic = Buffer.from(`dcr-main-1:${registered.clientSecret}`).toString('base64');
      expect(token.headers.authorization).toBe(`Basic ${basic}`);
      expect(token.status).toBe(200);
    });
  });

  describe('refresh', () => {
    it('refreshes an expiring token before it is sent (with the resource), keeping the refresh token when none is returned', async () => {
      await setUp({ expiresIn: 1 });
      const { p, store } = await authorizedWithStore();
      const first = stand!.issued[0];
      expect(first.refreshToken).toBeDefined();
      // A 1 s token is fresh for its first half: sent as it is, then refreshed.
      expect(await headersOf(p)).toEqual({
        Authorization: `Bearer ${first.accessToken}`,
      });
      await halfOfASecond();

      expect(await headersOf(p)).toEqual({
        Authorization: `Bearer ${stand!.issued[1].accessToken}`,
      });
      const refresh = stand!.requestsOf('token')[1];
      expect(refresh.params).toMatchObject({
        grant_type: 'refresh_token',
        refresh_token: first.refreshToken,
        resource: stand!.resourceUrl,
        client_id: 'dcr-main-1',
      });
      expect(stand!.issued[1].refreshToken).toBeUndefined();
      expect(store.get(key())?.refreshToken).toBe(first.refreshToken);

      // Two requests at once, once that token is half way too: one refresh.
      await halfOfASecond();
      const [a, b] = await Promise.all([headersOf(p), headersOf(p)]);
      expect(a).toEqual(b);
      expect(stand!.requestsOf('token')).toHaveLength(3);
      expect(stand!.requestsOf('token')[2].params.refresh_token).toBe(first.refreshToken);
      expect(a).toEqual({ Authorization: `Bearer ${stand!.issued[2].accessToken}` });
      expect(stand!.requestsOf('authorization')).toHaveLength(1);
    });

    it('drops the token when the refresh fails: no Authorization header, and the store forgets it', async () => {
      await setUp({ expiresIn: 1 });
      const { p, store } = await authorizedWithStore();
      as.failNext('refresh_token', { error: 'invalid_grant' });
      await halfOfASecond();

      expect(await headersOf(p)).toBeUndefined();
      expect(stand!.requestsOf('token')[1].status).toBe(400);
      expect(store.calls.at(-1)).toEqual({ op: 'delete', key: key() });
      expect(store.get(key())).toBeUndefined();
      const seen = stand!.requests.length;
      expect(await headersOf(p)).toBeUndefined();
      expect(stand!.requests).toHaveLength(seen);
    });

    it('drops an expiring token without a refresh token', async () => {
      await setUp({ expiresIn: 1, refreshTokens: false });
      const { p, store } = await authorizedWithStore();
      await halfOfASecond();
      expect(await headersOf(p)).toBeUndefined();
      expect(stand!.requestsOf('token')).toHaveLength(1);
      expect(store.get(key())).toBeUndefined();
    });
  });

  describe('a 401 with a token', () => {
    it('deletes the refused token, then refreshes it rather than authorize again', async () => {
      await setUp();
      const { p, store } = await authorizedWithStore();
      const first = stand!.issued[0];
      const sent = await headersOf(p);

      await expect(p.unauthorized(refusal(401, stand!.challenge({ error: 'invalid_token' }), sent))).resolves.toBe(
        true,
      );
      expect(store.calls.map((c) => c.op)).toEqual(['set', 'delete', 'set']);
      expect(store.calls[1].key).toEqual(key());
      expect(stand!.requestsOf('authorization')).toHaveLength(1);
      expect(stand!.requestsOf('token')[1].params).toMatchObject({
        grant_type: 'refresh_token',
        refresh_token: first.refreshToken,
        resource: stand!.resourceUrl,
      });
      expect(await bearerOf(p)).toBe(`Bearer ${stand!.issued[1].accessToken}`);
      expect(store.get(key())?.accessToken).toBe(stand!.issued[1].accessToken);
    });

    it('authorizes again when there is no refresh token, or the refresh fails', async () => {
      await setUp({ refreshTokens: false });
      const p = await authorized();
      await expect(p.unauthorized(await tokenRefusal(p))).resolves.toBe(true);
      expect(stand!.requestsOf('authorization')).toHaveLength(2);
      expect(stand!.requestsOf('token').map((t) => t.params.grant_type)).toEqual([
        'authorization_code',
        'authorization_code',
      ]);
      expect(await bearerOf(p)).toBe(`Bearer ${stand!.issued[1].accessToken}`);
      await stand!.close();

      await setUp();
      const q = await authorized();
      as.failNext('refresh_token', { error: 'invalid_grant' });
      await expect(q.unauthorized(await tokenRefusal(q))).resolves.toBe(true);
      expect(stand!.requestsOf('token').map((t) => [t.params.grant_type, t.status])).toEqual([
        ['authorization_code', 200],
        ['refresh_token', 400],
        ['authorization_code', 200],
      ]);
      expect(await bearerOf(q)).toBe(`Bearer ${stand!.issued[1].accessToken}`);
    });
  });

  it('follows the resource to a new authorization server: new metadata and registration, nothing of the old one sent', async () => {
    await setUp();
    const one = as;
    const two = stand!.addAuthorizationServer('two');
    const { p, store } = await authorizedWithStore();
    const old = stand!.issued[0];
    const migratedAt = stand!.requests.length;

    stand!.authorizationServers = [two.issuer];
    await expect(p.unauthorized(await tokenRefusal(p))).resolves.toBe(true);

    const after = stand!.requests.slice(migratedAt);
    expect(after.map((r) => [r.kind, r.issuer])).toEqual([
      ['resource-metadata', undefined],
      ['as-metadata', two.issuer],
      ['registration', two.issuer],
      ['authorization', two.issuer],
      ['token', two.issuer],
    ]);
    expect(stand!.requestsOf('authorization', two.issuer)[0].params.client_id).toBe('dcr-two-1');
    const sentAfter = JSON.stringify(after.map((r) => [r.url, r.headers, r.body]));
    for (const secret of ['dcr-main-1', old.accessToken, old.refreshToken!]) expect(sentAfter).not.toContain(secret);
    expect(await bearerOf(p)).toBe(`Bearer ${stand!.issued[1].accessToken}`);
    expect(stand!.issued[1].issuer).toBe(two.issuer);
    expect(store.get({ issuer: one.issuer, resource: stand!.resourceUrl })).toBeUndefined();
    expect(store.get({ issuer: two.issuer, resource: stand!.resourceUrl })?.accessToken).toBe(
      stand!.issued[1].accessToken,
    );
  });

  describe('a 403', () => {
    it('insufficient_scope: authorizes with the scopes held and those named, up to maxAuthorizationAttempts per set', async () => {
      await setUp({ scopesSupported: ['read', 'write'] });
      const p = await authorized({}, stand!.challenge({ scope: ['read'] }));
      const stepUp = (sent: Record<string, string> | undefined) =>
        p.unauthorized(refusal(403, stand!.challenge({ error: 'insufficient_scope', scope: ['write'] }), sent));

      await expect(stepUp(await headersOf(p))).resolves.toBe(true);
      await expect(stepUp(await headersOf(p))).resolves.toBe(true);
      expect(stand!.requestsOf('authorization').map((a) => a.params.scope)).toEqual([
        'read',
        'read write',
        'read write',
      ]);
      const error = await rejection(stepUp(await headersOf(p)));
      expect(error).toBeInstanceOf(McpAuthorizationError);
      expect(error.message).toMatch(/still refuses after 2 authorizations with the scopes \[read write\]/);
      expect(stand!.requestsOf('authorization')).toHaveLength(3);
      expectNoSecretIn(error);
    });

    it('maxAuthorizationAttempts: 1 allows one authorization per set of scopes', async () => {
      await setUp({ scopesSupported: ['read', 'write'] });
      const p = await authorized({ maxAuthorizationAttempts: 1 }, stand!.challenge({ scope: ['read'] }));
      const challenge = stand!.challenge({ error: 'insufficient_scope', scope: ['write'] });
      await expect(p.unauthorized(refusal(403, challenge, await headersOf(p)))).resolves.toBe(true);
      await expect(p.unauthorized(refusal(403, challenge, await headersOf(p)))).rejects.toThrow(McpAuthorizationError);
      expect(stand!.requestsOf('authorization')).toHaveLength(2);
    });

    it('without insufficient_scope is not the provider’s to answer: false, and nothing sent', async () => {
      await setUp();
      const p = await authorized();
      const seen = stand!.requests.length;
      const sent = await headersOf(p);
      expect(await p.unauthorized(refusal(403, stand!.challenge({ error: 'invalid_token' }), sent))).toBe(false);
      // No challenge at all (the default parameter would put one back: spelled out).
      expect(await p.unauthorized({ ...refusal(403, '', sent), challenge: undefined })).toBe(false);
      expect(await p.unauthorized(refusal(403, 'Basic realm="x"', sent))).toBe(false);
      expect(stand!.requests).toHaveLength(seen);
    });
  });

  describe('concurrency', () => {
    it('two refusals at once run one authorization', async () => {
      await setUp();
      const p = provider();
      await expect(Promise.all([p.unauthorized(refusal()), p.unauthorized(refusal())])).resolves.toEqual([true, true]);
      expect(stand!.requestsOf('authorization')).toHaveLength(1);
      expect(stand!.requestsOf('token')).toHaveLength(1);
    });

    it('a 401 for a token already replaced retries at once with the current one', async () => {
      await setUp();
      const p = await authorized();
      const seen = stand!.requests.length;
      const stale = refusal(401, stand!.challenge({ error: 'invalid_token' }), { Authorization: 'Bearer replaced' });
      expect(p.unauthorized(stale)).toBe(true);
      expect(p.unauthorized({ ...stale, sent: undefined })).toBe(true);
      expect(stand!.requests).toHaveLength(seen);
    });

    it('a 403 insufficient_scope for a token already replaced (a step-up since) retries at once with the current one', async () => {
      await setUp({ scopesSupported: ['read', 'write'] });
      const p = await authorized({}, stand!.challenge({ scope: ['read'] }));
      const before = await headersOf(p);
      const challenge = stand!.challenge({ error: 'insufficient_scope', scope: ['write'] });
      await expect(p.unauthorized(refusal(403, challenge, before))).resolves.toBe(true);
      const seen = stand!.requests.length;

      // Another request sent with the read-only token, answered after the step-up.
      expect(p.unauthorized(refusal(403, challenge, before))).toBe(true);
      expect(stand!.requests).toHaveLength(seen);
      expect(stand!.requestsOf('authorization')).toHaveLength(2);
    });
  });

  describe('refusals', () => {
    it.each([
      ['plain only', ['plain']],
      ['not advertised', undefined],
    ])('an authorization server without PKCE S256 (%s) is refused before a registration there', async (_, methods) => {
      await setUp({ codeChallengeMethods: methods });
      const error = await rejection(provider().unauthorized(refusal()));
      expect(error).toBeInstanceOf(McpAuthorizationError);
      expect(error.message).toBe(`The authorization server ${as.issuer} does not advertise PKCE with S256`);
      expect(stand!.requestsOf('registration')).toHaveLength(0);
      expect(stand!.requestsOf('authorization')).toHaveLength(0);
      expect(stand!.requestsOf('token')).toHaveLength(0);
    });

    it.each([
      ['advertised and missing', { iss: 'omitted', advertiseIss: true }],
      ['another issuer', { iss: 'wrong' }],
      ['another issuer, not advertised', { iss: 'wrong', advertiseIss: false }],
    ] as const)(
      'an authorization response whose iss is %s is refused, before any token request',
      async (_, settings) => {
        await setUp(settings);
        const error = await rejection(provider().unauthorized(refusal()));
        expect(error).toBeInstanceOf(McpAuthorizationError);
        expect(error.message).toMatch(/^OAuth authorization failed: .*iss/);
        expect(stand!.requestsOf('authorization')).toHaveLength(1);
        expect(stand!.requestsOf('token')).toHaveLength(0);
        expectNoSecretIn(error);
      },
    );

    it('an authorization response without iss from a server that does not advertise it is accepted', async () => {
      await setUp({ iss: 'omitted', advertiseIss: false });
      await expect(provider().unauthorized(refusal())).resolves.toBe(true);
      expect(stand!.requestsOf('token')[0].status).toBe(200);
    });

    it('an error answer of the token endpoint names the step and the error, and no secret', async () => {
      const clientSecret = 'the-client-secret';
      await setUp({ clients: [{ clientId: 'app', clientSecret }] });
      as.failNext('authorization_code', { error: 'invalid_grant', description: 'the code has expired' });
      const error = await rejection(provider({ clientId: 'app', clientSecret }).unauthorized(refusal()));
      expect(error).toBeInstanceOf(McpAuthorizationError);
      expect(error.message).toBe('OAuth token request failed: invalid_grant: the code has expired');
      const code = new URLSearchParams(stand!.requestsOf('token')[0].body).get('code')!;
      const verifier = new URLSearchParams(stand!.requestsOf('token')[0].body).get('code_verifier')!;
      expectNoSecretIn(error, [clientSecret, code, verifier]);
    });

    it.each([
      ['redirectUri', { redirectUri: undefined }],
      ['onAuthorizationUrl', { onAuthorizationUrl: undefined }],
    ])(
      'without %s, the authorization code grant fails with what to configure, before registering',
      async (_, options) => {
        await setUp();
        const error = await rejection(provider(options).unauthorized(refusal()));
        expect(error).toBeInstanceOf(McpAuthorizationError);
        expect(error.message).toBe(
          'The server needs an authorization: configure redirectUri and onAuthorizationUrl (or grant: client_credentials)',
        );
        expect(stand!.requestsOf('registration')).toHaveLength(0);
        expect(stand!.requestsOf('authorization')).toHaveLength(0);
      },
    );
  });

  describe('the token store', () => {
    it('receives each token, and gives it to a new provider (a restart) without a new authorization', async () => {
      await setUp({ refreshTokens: false });
      const { store } = await authorizedWithStore();
      const [set] = store.calls;
      expect(set).toEqual({
        op: 'set',
        key: key(),
        tokens: {
          accessToken: stand!.issued[0].accessToken,
          tokenType: 'Bearer',
          scope: ['read', 'offline_access'],
          expiresAt: expect.any(Number),
          issuedAt: expect.any(Number),
        },
      });

      const restarted = provider({ tokenStore: store });
      expect(headersOf(restarted)).toBeUndefined();
      const seen = stand!.requests.length;
      await expect(restarted.unauthorized(refusal())).resolves.toBe(true);
      expect(stand!.requests.slice(seen).map((r) => r.kind)).toEqual(['resource-metadata', 'as-metadata']);
      expect(await bearerOf(restarted)).toBe(`Bearer ${stand!.issued[0].accessToken}`);

      // The stored token refused: a new authorization, with the client registered before the restart.
      await expect(restarted.unauthorized(await tokenRefusal(restarted))).resolves.toBe(true);
      expect(stand!.requestsOf('registration')).toHaveLength(1);
      expect(stand!.requestsOf('authorization').map((a) => a.params.client_id)).toEqual(['dcr-main-1', 'dcr-main-1']);
      expect(store.calls.map((c) => c.op)).toEqual(['set', 'set', 'delete', 'set']);
    });
  });

  describe('through HttpClientSession', () => {
    it('authorizes on the first 401, steps up on a 403, refreshes a refused token: each request answered 200', async () => {
      await setUp();
      const p = provider();
      const session = new HttpClientSession({ url: stand!.resourceUrl, auth: p });
      const send = async () => {
        const response = await session.send({
          method: 'POST',
          fixed: { 'content-type': 'application/json', accept: 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        });
        return { status: response.status, body: (await response.json()) as { result: { scope: string[] } } };
      };
      const resourceAuthorizations = () =>
        stand!.requestsOf('resource').map((r) => [r.headers.authorization?.replace(/^Bearer /, ''), r.status]);

      const first = await send();
      expect(first.status).toBe(200);
      expect(first.body.result.scope).toEqual(['read', 'offline_access']);
      const [t0] = stand!.issued;
      expect(resourceAuthorizations()).toEqual([
        [undefined, 401],
        [t0.accessToken, 200],
      ]);

      stand!.requiredScopes = ['read', 'write'];
      const second = await send();
      expect(second.status).toBe(200);
      expect(second.body.result.scope).toEqual(expect.arrayContaining(['read', 'write']));
      expect(stand!.requestsOf('authorization')[1].params.scope.split(' ').sort()).toEqual([
        'offline_access',
        'read',
        'write',
      ]);
      const t1 = stand!.issued[1];
      expect(resourceAuthorizations().slice(2)).toEqual([
        [t0.accessToken, 403],
        [t1.accessToken, 200],
      ]);

      stand!.revokeAll();
      expect((await send()).status).toBe(200);
      expect(stand!.requestsOf('token').at(-1)!.params.grant_type).toBe('refresh_token');
      expect(stand!.requestsOf('authorization')).toHaveLength(2);
      expect(resourceAuthorizations().slice(4)).toEqual([
        [t1.accessToken, 401],
        [stand!.issued[2].accessToken, 200],
      ]);

      // A 403 that is not about scope reaches the caller as it is, without a new authorization.
      const seen = stand!.requests.length;
      stand!.refuseNext(403, stand!.challenge({ error: 'invalid_token' }));
      expect((await session.send({ method: 'POST', fixed: {}, body: '{}' })).status).toBe(403);
      expect(stand!.requests.slice(seen).map((r) => [r.kind, r.status])).toEqual([['resource', 403]]);
    });
  });
});

/** Past the first half of a 1 s token's lifetime, when the client refreshes it. */
function halfOfASecond(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 550));
}

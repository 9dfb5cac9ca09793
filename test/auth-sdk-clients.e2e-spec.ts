// The official SDK clients (1.x and 2.x) doing OAuth by themselves against McpModule.forRoot({ auth }) and a real
// authorization server (the demo's oidc-provider, in a child process), on the server mount, as Express routes and as
// Fastify routes: protected resource metadata → authorization server metadata → dynamic client registration →
// authorization code with PKCE (the test's provider plays the browser) → token → calls; step-up after a 403
// insufficient_scope, as far as each SDK takes it; their client credentials providers; and opaque tokens checked by
// introspection at that same authorization server.
import { INestApplication } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt } from 'jose';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError as Sdk1UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider as Sdk1ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import {
  StreamableHTTPClientTransport as Sdk1Transport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as Sdk2Client,
  ClientCredentialsProvider as Sdk2ClientCredentialsProvider,
  OAuthError as Sdk2OAuthError,
  StreamableHTTPClientTransport as Sdk2Transport,
  UnauthorizedError as Sdk2UnauthorizedError,
  VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { freePort, HTTP_MOUNTS } from './support/http-adapters';
import { startNotesServer } from './support/notes-resource.server';
import { AuthServerFixture, startAuthServer } from './support/oidc-as.fixture';
import { TestOAuthClientProvider } from './support/oauth-client.provider';

const MODERN = '2026-07-28';

/** `METHOD URL STATUS` of every request a transport made, MCP and OAuth alike; no header is kept (tokens). */
class RequestLog {
  readonly entries: string[] = [];
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const url = input instanceof Request ? input.url : String(input);
    const response = await fetch(input, init);
    this.entries.push(`${method} ${url} ${response.status}`);
    return response;
  };

  /** The requests that were not to `endpoint`: discovery, registration, token. */
  oauth(endpoint: string): string[] {
    return this.entries.filter((entry) => entry.split(' ')[1] !== endpoint);
  }

  /** The entries from `start` on, but the legacy era's standalone GET stream (it opens whenever it likes). */
  since(start: number, endpoint: string): string[] {
    return this.entries.slice(start).filter((entry) => !entry.startsWith(`GET ${endpoint} `));
  }
}

interface Closable {
  close(): Promise<void>;
}

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0].text;
const scopesOf = (token: string) => String(decodeJwt(token).scope ?? '').split(' ');
const toolNames = (list: { tools: Array<{ name: string }> }) => list.tools.map((tool) => tool.name).sort();

describe.each(HTTP_MOUNTS)('the official SDK clients doing OAuth (%s adapter, %s mount)', (adapter, mount) => {
  let as: AuthServerFixture;
  let app: INestApplication;
  let base: string;
  let resource: string;
  const open: Closable[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    resource = `${base}/mcp`;
    as = await startAuthServer({ resource });
    app = await startNotesServer({
      port,
      adapter,
      http: { mount },
      auth: {
        resource,
        authorizationServers: [as.issuer],
        token: { type: 'jwt' },
        // The least a client needs to start with (the SDKs ask for what the metadata lists); more comes by step-up
        // when a call is refused.
        scopesSupported: ['notes:read'],
      },
    });
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close()));
  });

  afterAll(async () => {
    await app?.close();
    await as?.stop();
  });

  const provider = (options: { clientId?: string; grantTypes?: string[] } = {}) =>
    new TestOAuthClientProvider({
      browse: (url) => as.browse(url),
      grantTypes: options.grantTypes,
      registered: options.clientId ? { clientId: options.clientId, issuer: as.issuer } : undefined,
    });

  const metadataUrl = () => `${base}/.well-known/oauth-protected-resource/mcp`;

  /**
   * An SDK 1.x client authorized as a host does it: connect, which rejects with UnauthorizedError once the user has
   * been sent to the authorization URL; finishAuth with the code of the redirect; connect again on a new transport.
   */
  async function sdk1(oauth: TestOAuthClientProvider, log = new RequestLog()) {
    const first = new Sdk1Transport(new URL(resource), { authProvider: oauth, fetch: log.fetch });
    await expect(new Sdk1Client({ name: 'sdk1', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      Sdk1UnauthorizedError,
    );
    await first.finishAuth(oauth.takeCallback().searchParams.get('code')!);
    await first.close();
    const transport = new Sdk1Transport(new URL(resource), { authProvider: oauth, fetch: log.fetch });
    const client = new Sdk1Client({ name: 'sdk1', version: '1.0.0' });
    await client.connect(transport);
    open.push(client);
    return { client, transport };
  }

  /** The same with SDK 2.x, whose finishAuth takes the redirect's parameters (it checks `iss`, RFC 9207). */
  async function sdk2(oauth: TestOAuthClientProvider, mode?: VersionNegotiationMode, log = new RequestLog()) {
    const make = () =>
      new Sdk2Client({ name: 'sdk2', version: '2.0.0' }, mode ? { versionNegotiation: { mode } } : undefined);
    const first = new Sdk2Transport(new URL(resource), { authProvider: oauth, fetch: log.fetch });
    await expect(make().connect(first)).rejects.toBeInstanceOf(Sdk2UnauthorizedError);
    await first.finishAuth(oauth.takeCallback().searchParams);
    await first.close();
    const transport = new Sdk2Transport(new URL(resource), { authProvider: oauth, fetch: log.fetch });
    const client = make();
    await client.connect(transport);
    open.push(client);
    return { client, transport };
  }

  /** What the first leg of any flow looks like: refused, then the two metadata documents. */
  function expectDiscovery(log: RequestLog) {
    expect(log.entries[0]).toBe(`POST ${resource} 401`);
    expect(log.oauth(resource).slice(0, 2)).toEqual([
      `GET ${metadataUrl()} 200`,
      `GET ${as.issuer}/.well-known/oauth-authorization-server 200`,
    ]);
  }

  function expectAuthorizationRequest(url: URL, oauth: TestOAuthClientProvider, scope: string) {
    expect(url.origin + url.pathname).toBe(`${as.issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: oauth.clientInformation()!.client_id,
      redirect_uri: oauth.redirectUrl,
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      resource,
      scope,
    });
  }

  describe('authorization code with PKCE, the client registering itself', () => {
    it('SDK 1.x: discovery, registration, authorization, token; tools/list and tools/call then act as the user', async () => {
      const oauth = provider();
      const log = new RequestLog();
      const { client } = await sdk1(oauth, log);

      expectDiscovery(log);
      expect(log.oauth(resource).slice(2)).toEqual([`POST ${as.issuer}/reg 201`, `POST ${as.issuer}/token 200`]);
      expect(oauth.registrations).toBe(1);
      expect(oauth.clientInformation()!.client_id).not.toBe(as.publicClient.clientId);
      expect(oauth.authorizationUrls).toHaveLength(1);
      expectAuthorizationRequest(oauth.authorizationUrls[0], oauth, 'notes:read');

      const claims = decodeJwt(oauth.accessToken);
      expect(claims).toMatchObject({
        iss: as.issuer,
        aud: resource,
        sub: 'demo',
        client_id: oauth.clientInformation()!.client_id,
        scope: 'notes:read',
      });
      // add_note needs notes:write: not listed to this token.
      expect(toolNames(await client.listTools())).toEqual(['list_notes', 'whoami']);
      expect(JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })))).toEqual({
        subject: 'demo',
        clientId: oauth.clientInformation()!.client_id,
        scopes: ['notes:read'],
        claims,
      });
      expect(textOf(await client.callTool({ name: 'list_notes', arguments: {} }))).toMatch(/^\[/);
    });

    it('SDK 2.x (legacy era, its default): the same flow; it adds offline_access and forces consent', async () => {
      const oauth = provider();
      const log = new RequestLog();
      const { client } = await sdk2(oauth, undefined, log);

      expectDiscovery(log);
      expect(log.oauth(resource).slice(2)).toEqual([`POST ${as.issuer}/reg 201`, `POST ${as.issuer}/token 200`]);
      expect(oauth.registrations).toBe(1);
      expectAuthorizationRequest(oauth.authorizationUrls[0], oauth, 'notes:read offline_access');
      expect(oauth.authorizationUrls[0].searchParams.get('prompt')).toBe('consent');
      expect(oauth.tokens()).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String) });
      expect(decodeJwt(oauth.accessToken)).toMatchObject({ iss: as.issuer, aud: resource, sub: 'demo' });

      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      expect(toolNames(await client.listTools())).toEqual(['list_notes', 'whoami']);
      expect(JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })))).toMatchObject({
        subject: 'demo',
        scopes: ['notes:read'],
      });
    });

    it.each([
      ['pinned to 2026-07-28', { pin: MODERN } as VersionNegotiationMode],
      ['negotiating (auto: server/discover)', 'auto' as VersionNegotiationMode],
    ])('SDK 2.x %s: the same flow, then the calls in the modern era', async (_, mode) => {
      const oauth = provider();
      const log = new RequestLog();
      const { client } = await sdk2(oauth, mode, log);

      expectDiscovery(log);
      expect(oauth.registrations).toBe(1);
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(toolNames(await client.listTools())).toEqual(['list_notes', 'whoami']);
      expect(JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })))).toMatchObject({
        subject: 'demo',
        clientId: oauth.clientInformation()!.client_id,
        scopes: ['notes:read'],
      });
    });
    it('both SDKs stop before authorizing a server they reach by another host name (localhost for 127.0.0.1)', async () => {
      // RFC 9728 §3.3: the metadata's resource must be the URL the client used. `resource` is configuration, so it
      // has to name the host clients will type.
      const elsewhere = new URL(resource.replace('127.0.0.1', 'localhost'));
      const sdk1Provider = provider();
      const sdk2Provider = provider();
      const refusals = await Promise.all([
        new Sdk1Client({ name: 'sdk1', version: '1.0.0' })
          .connect(new Sdk1Transport(elsewhere, { authProvider: sdk1Provider }))
          .then(
            () => undefined,
            (error: Error) => error.message,
          ),
        new Sdk2Client({ name: 'sdk2', version: '2.0.0' })
          .connect(new Sdk2Transport(elsewhere, { authProvider: sdk2Provider }))
          .then(
            () => undefined,
            (error: Error) => error.message,
          ),
      ]);
      for (const message of refusals)
        expect(message).toBe(`Protected resource ${resource} does not match expected ${elsewhere.href} (or origin)`);
      for (const oauth of [sdk1Provider, sdk2Provider]) {
        expect(oauth.registrations).toBe(0);
        expect(oauth.authorizationUrls).toEqual([]);
      }
    });
  });

  describe('step-up after 403 insufficient_scope', () => {
    it.each([
      ['legacy era', undefined, 'one'],
      ['modern era', { pin: MODERN } as VersionNegotiationMode, 'uno'],
    ])(
      'SDK 2.x (%s): re-authorizes for what it held plus the challenged scope, no refresh first; the call then passes',
      async (_, mode, text) => {
        // Registered beforehand, for no particular scope: the authorization server lets it ask for more later.
        const oauth = provider({ clientId: as.publicClient.clientId });
        const log = new RequestLog();
        const { client, transport } = await sdk2(oauth, mode, log);
        expect(oauth.tokens()!.refresh_token).toEqual(expect.any(String));
        const session = transport.sessionId;
        const before = log.entries.length;

        // The transport meets the 403, sends the user to authorize and rejects; the host finishes and calls again.
        await expect(client.callTool({ name: 'add_note', arguments: { text } })).rejects.toBeInstanceOf(
          Sdk2UnauthorizedError,
        );
        expect(log.since(before, resource)).toEqual([`POST ${resource} 403`]);
        expect(oauth.authorizationUrls).toHaveLength(2);
        expectAuthorizationRequest(oauth.authorizationUrls[1], oauth, 'notes:read notes:write offline_access');
        await transport.finishAuth(oauth.takeCallback().searchParams);

        expect(scopesOf(oauth.accessToken)).toEqual(['notes:read', 'notes:write']);
        expect(textOf(await client.callTool({ name: 'add_note', arguments: { text } }))).toBe(`added: ${text}`);
        expect(JSON.parse(textOf(await client.callTool({ name: 'list_notes', arguments: {} })))).toContain(text);
        expect(toolNames(await client.listTools())).toEqual(['add_note', 'list_notes', 'whoami']);
        // Same user, new token: a legacy session, bound to the user, carries on (the modern era has none).
        expect(transport.sessionId).toBe(session);
      },
    );

    it('SDK 2.x with a client it registered for notes:read: the authorization server refuses more (invalid_scope)', async () => {
      // Both SDKs register the scope they first ask for; oidc-provider then holds the client to it (RFC 7591 scope).
      const oauth = provider();
      const { client, transport } = await sdk2(oauth);
      await expect(client.callTool({ name: 'add_note', arguments: { text: 'two' } })).rejects.toBeInstanceOf(
        Sdk2UnauthorizedError,
      );
      expect(oauth.authorizationUrls[1].searchParams.get('scope')).toBe('notes:read notes:write offline_access');
      const callback = oauth.takeCallback();
      expect(callback.searchParams.get('error')).toBe('invalid_scope');
      const refusal = await transport.finishAuth(callback.searchParams).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(Sdk2OAuthError);
      expect(refusal).toMatchObject({ code: 'invalid_scope' });
      expect(scopesOf(oauth.accessToken)).toEqual(['notes:read']);
    });

    it('SDK 1.x holding a refresh token: refreshes instead, which cannot widen the scope, and gives up with the 403', async () => {
      const oauth = provider({ clientId: as.publicClient.clientId });
      const log = new RequestLog();
      const { client } = await sdk1(oauth, log);
      const before = log.entries.length;
      const first = oauth.accessToken;

      const refusal = await client.callTool({ name: 'add_note', arguments: { text: 'three' } }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(StreamableHTTPError);
      expect(refusal).toMatchObject({ code: 403, message: expect.stringContaining('after trying upscoping') });
      expect(log.since(before, resource)).toEqual([
        `POST ${resource} 403`,
        `POST ${as.issuer}/token 200`,
        `POST ${resource} 403`,
      ]);
      expect(oauth.authorizationUrls).toHaveLength(1);
      expect(oauth.accessToken).not.toBe(first);
      expect(scopesOf(oauth.accessToken)).toEqual(['notes:read']);
    });

    it('SDK 1.x without refresh tokens: re-authorizes for the challenged scope only, and the call then passes', async () => {
      const { client_id: clientId } = await as.register({
        redirect_uris: ['http://127.0.0.1/oauth/callback'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      });
      const oauth = provider({ clientId, grantTypes: ['authorization_code'] });
      const { client, transport } = await sdk1(oauth);
      expect(oauth.tokens()!.refresh_token).toBeUndefined();

      await expect(client.callTool({ name: 'add_note', arguments: { text: 'four' } })).rejects.toBeInstanceOf(
        Sdk1UnauthorizedError,
      );
      expectAuthorizationRequest(oauth.authorizationUrls[1], oauth, 'notes:write');
      await transport.finishAuth(oauth.takeCallback().searchParams.get('code')!);
      expect(textOf(await client.callTool({ name: 'add_note', arguments: { text: 'four' } }))).toBe('added: four');

      // SDK 1.x asks for the challenged scope alone: the new token lost notes:read, and reading starts another round.
      expect(scopesOf(oauth.accessToken)).toEqual(['notes:write']);
      await expect(client.callTool({ name: 'list_notes', arguments: {} })).rejects.toBeInstanceOf(
        Sdk1UnauthorizedError,
      );
      expect(oauth.authorizationUrls[2].searchParams.get('scope')).toBe('notes:read');
    });
  });

  describe('client credentials', () => {
    it('SDK 1.x ClientCredentialsProvider: the token carries the scope its options name; the client is the subject', async () => {
      const credentials = new Sdk1ClientCredentialsProvider({
        clientId: as.serviceClient.clientId,
        clientSecret: as.serviceClient.clientSecret,
        expectedIssuer: as.issuer,
        scope: 'notes:read',
      });
      const log = new RequestLog();
      const client = new Sdk1Client({ name: 'sdk1', version: '1.0.0' });
      await client.connect(new Sdk1Transport(new URL(resource), { authProvider: credentials, fetch: log.fetch }));
      open.push(client);
      expectDiscovery(log);
      expect(log.oauth(resource).slice(2)).toEqual([`POST ${as.issuer}/token 200`]);
      expect(JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })))).toMatchObject({
        subject: as.serviceClient.clientId,
        clientId: as.serviceClient.clientId,
        scopes: ['notes:read'],
      });
    });

    it('SDK 2.x ClientCredentialsProvider (expectedIssuer), modern era: asks for the metadata’s scopes by itself', async () => {
      const credentials = new Sdk2ClientCredentialsProvider({
        clientId: as.serviceClient.clientId,
        clientSecret: as.serviceClient.clientSecret,
        expectedIssuer: as.issuer,
      });
      const log = new RequestLog();
      const client = new Sdk2Client(
        { name: 'sdk2', version: '2.0.0' },
        { versionNegotiation: { mode: { pin: MODERN } } },
      );
      await client.connect(new Sdk2Transport(new URL(resource), { authProvider: credentials, fetch: log.fetch }));
      open.push(client);
      expectDiscovery(log);
      expect(log.oauth(resource).slice(2)).toEqual([`POST ${as.issuer}/token 200`]);
      expect(client.getProtocolEra()).toBe('modern');
      expect(JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })))).toMatchObject({
        subject: as.serviceClient.clientId,
        clientId: as.serviceClient.clientId,
        scopes: ['notes:read'],
      });
    });
  });
});

// Opaque access tokens from the same authorization server, checked by introspection (RFC 7662) with the client it
// keeps for resource servers; its metadata names the endpoint. One mount: introspection is not the transport's.
describe('opaque tokens of a real authorization server, by introspection (express adapter, server mount)', () => {
  const CACHE_TTL_MS = 1_000;
  let as: AuthServerFixture;
  let app: INestApplication;
  let resource: string;
  const open: Closable[] = [];

  beforeAll(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    as = await startAuthServer({ resource, format: 'opaque' });
    app = await startNotesServer({
      port,
      auth: {
        resource,
        authorizationServers: [as.issuer],
        token: {
          type: 'introspection',
          clientId: as.introspectionClient.clientId,
          clientSecret: as.introspectionClient.clientSecret,
          cacheTtlMs: CACHE_TTL_MS,
        },
      },
    });
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close()));
  });

  afterAll(async () => {
    await app?.close();
    await as?.stop();
  });

  /** whoami in the modern era with `token`, as one request: the status, the challenge, and ctx.auth when it passed. */
  async function whoami(token: string) {
    const response = await fetch(resource, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'whoami',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'whoami',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const challenge = response.headers.get('www-authenticate');
    if (response.status !== 200) {
      await response.body?.cancel();
      return { status: response.status, challenge };
    }
    const body = (await response.json()) as { result: unknown };
    return { status: 200, challenge, auth: JSON.parse(textOf(body.result)) as Record<string, unknown> };
  }

  it('SDK 2.x authorizes through the flow and gets an opaque token: accepted, ctx.auth from the introspection answer', async () => {
    const oauth = new TestOAuthClientProvider({ browse: (url) => as.browse(url) });
    const first = new Sdk2Transport(new URL(resource), { authProvider: oauth });
    await expect(new Sdk2Client({ name: 'sdk2', version: '2.0.0' }).connect(first)).rejects.toBeInstanceOf(
      Sdk2UnauthorizedError,
    );
    await first.finishAuth(oauth.takeCallback().searchParams);
    await first.close();
    const client = new Sdk2Client({ name: 'sdk2', version: '2.0.0' });
    await client.connect(new Sdk2Transport(new URL(resource), { authProvider: oauth }));
    open.push(client);

    expect(oauth.accessToken).not.toContain('.');
    const answer = await as.introspect(oauth.accessToken);
    // No scopesSupported here: the metadata lists every declared scope, and the client asked for them all.
    expect(answer).toMatchObject({ active: true, sub: 'demo', aud: resource, scope: 'notes:read notes:write' });
    expect(JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })))).toEqual({
      subject: 'demo',
      clientId: oauth.clientInformation()!.client_id,
      scopes: ['notes:read', 'notes:write'],
      claims: answer,
    });
  });

  it('refuses a revoked token once the cache TTL has passed (401 invalid_token)', async () => {
    const { access_token: token } = await as.authorizationCode({ scope: 'notes:read notes:write' });
    expect(await whoami(token)).toMatchObject({ status: 200, auth: { subject: 'demo' } });
    await as.revoke(token);
    expect(await as.introspect(token)).toEqual({ active: false });
    // The answer cached before the revocation still stands (the documented cost of caching)...
    expect(await whoami(token)).toMatchObject({ status: 200, auth: { subject: 'demo' } });
    await sleep(CACHE_TTL_MS + 100);
    // ...and no longer once it has expired.
    const refused = await whoami(token);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(/^Bearer error="invalid_token"/);
  });
});

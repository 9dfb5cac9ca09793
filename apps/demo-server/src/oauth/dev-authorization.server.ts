// A development and test OAuth 2.1 authorization server (oidc-provider 9) for the demo and the e2e suites: loopback
// only, in memory, one user form, consent approved at once, open dynamic client registration. Never for production.
import { createHash, generateKeyPairSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The signature algorithms the dev server signs JWT access tokens with. */
export type DevSigningAlgorithm = 'ES256' | 'RS256' | 'PS256' | 'EdDSA';

/** A private JSON Web Key (the members oidc-provider reads; `kid` must be unique in the set). */
export type DevPrivateJwk = Record<string, unknown> & { kty: string; kid?: string; alg?: string };

export interface DevAuthorizationServerOptions {
  /** The MCP endpoint's canonical URI: the only resource indicator accepted, and the audience of every access token. */
  resource: string;
  /** The resource's scopes, granted on request (default `notes:read notes:write admin`). */
  scopes?: string[];
  /** JWT access tokens (RFC 9068, the default) or opaque ones (for introspection). */
  format?: 'jwt' | 'opaque';
  /** The algorithm JWT access tokens are signed with (default ES256); `jwks` must hold a key for it. */
  alg?: DevSigningAlgorithm;
  /** The private signing keys; generated (one key for `alg`) when absent. */
  jwks?: { keys: DevPrivateJwk[] };
  /** Access token lifetime (default 300). */
  accessTokenTtlSeconds?: number;
  /** A pre-registered public client: authorization code with PKCE, refresh tokens. */
  publicClient?: { clientId: string; redirectUris: string[] };
  /** A pre-registered confidential client for the client credentials grant (client_secret_basic or _post). */
  serviceClient?: { clientId: string; clientSecret: string };
  /** A confidential client a resource server authenticates with at the introspection endpoint. */
  introspectionClient?: { clientId: string; clientSecret: string };
  /** User names and their passwords for the login form (default `demo`/`demo`). */
  users?: Record<string, string>;
  /** Default 0 (any free port). */
  port?: number;
  /** Loopback only: 127.0.0.1 (the default) is the one value accepted. */
  host?: '127.0.0.1';
}

export interface DevAuthorizationServer {
  /** `http://127.0.0.1:<port>`, no trailing slash: what the resource server's `authorizationServers` must name. */
  readonly issuer: string;
  readonly port: number;
  /** RFC 8414 metadata URL. */
  readonly metadataUrl: string;
  readonly resource: string;
  /** The public halves of the signing keys (what `/jwks` serves). */
  readonly publicJwks: { keys: Array<Record<string, unknown>> };
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const DEFAULT_SCOPES = ['notes:read', 'notes:write', 'admin'];
const INTERACTION = /^\/interaction\/([\w-]+)$/;
const MAX_FORM_BYTES = 4096;

/* eslint-disable @typescript-eslint/no-explicit-any -- oidc-provider ships no types; it is used through a loose surface */
type KoaContext = { path: string; method: string; query: Record<string, any>; req: any; res: any } & Record<
  string,
  any
>;
type Next = () => Promise<void>;

/**
 * Starts a development authorization server on 127.0.0.1 for one MCP resource: RFC 8414 metadata, authorization code
 * with PKCE (S256 required) behind a one-user login form with consent approved at once, client credentials, refresh
 * tokens (rotated for public clients), open dynamic client registration (with CORS, for browser clients), revocation,
 * introspection, JWT or opaque access tokens whose audience is `resource`. State lives in memory.
 *
 * @example
 * const as = await startDevAuthorizationServer({
 *   resource: 'http://127.0.0.1:3000/mcp',
 *   publicClient: { clientId: 'conduit-demo', redirectUris: ['http://127.0.0.1:6274/oauth/callback'] },
 * });
 * // McpModule.forRoot({ auth: { resource: 'http://127.0.0.1:3000/mcp', authorizationServers: [as.issuer] } })
 * await as.close();
 */
export async function startDevAuthorizationServer(
  options: DevAuthorizationServerOptions,
): Promise<DevAuthorizationServer> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error('The development authorization server listens on 127.0.0.1 only');
  const resource = options.resource;
  if (typeof resource !== 'string' || !URL.canParse(resource) || resource.includes('#'))
    throw new Error('resource must be an absolute URI without a fragment (the MCP endpoint)');
  const scopes = options.scopes ?? DEFAULT_SCOPES;
  const alg = options.alg ?? 'ES256';
  const jwks = options.jwks ?? { keys: [generateSigningKey(alg)] };
  if (!jwks.keys.some((key) => keyFits(key, alg))) throw new Error(`jwks holds no key for ${alg}`);
  const ttl = options.accessTokenTtlSeconds ?? 300;
  const users = options.users ?? { demo: 'demo' };

  const { Provider, errors } = loadOidcProvider();

  const clients: Array<Record<string, unknown>> = [];
  if (options.publicClient)
    clients.push({
      client_id: options.publicClient.clientId,
      token_endpoint_auth_method: 'none',
      redirect_uris: options.publicClient.redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
  if (options.serviceClient)
    clients.push({
      client_id: options.serviceClient.clientId,
      client_secret: options.serviceClient.clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    });
  if (options.introspectionClient)
    clients.push({
      client_id: options.introspectionClient.clientId,
      client_secret: options.introspectionClient.clientSecret,
      grant_types: [],
      response_types: [],
      redirect_uris: [],
    });

  // The issuer needs the port: listen first, then hand the server's requests to the provider.
  let handle = (_req: IncomingMessage, res: ServerResponse) => void res.writeHead(503).end();
  const server: Server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://${host}:${port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });

  let provider: any;
  try {
    provider = new Provider(issuer, {
      jwks,
      clients,
      clientDefaults: { id_token_signed_response_alg: alg },
      // The resource's scopes are OIDC scopes too: dynamic registration refuses a `scope` member naming unknown ones.
      scopes: ['openid', 'offline_access', ...scopes],
      claims: { openid: ['sub'] },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      pkce: { required: () => true },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        registration: { enabled: true },
        introspection: { enabled: true, allowedPolicy: introspectionAllowed },
        revocation: { enabled: true, allowedPolicy: revocationAllowed },
        resourceIndicators: {
          enabled: true,
          // A request naming no resource gets this one; token and refresh requests may omit it.
          defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf ?? resource,
          useGrantedResource: async () => true,
          getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
            if (indicator !== resource) throw new errors.InvalidTarget();
            return {
              scope: scopes.join(' '),
              audience: resource,
              accessTokenTTL: ttl,
              accessTokenFormat: options.format ?? 'jwt',
              jwt: { sign: { alg } },
            };
          },
        },
      },
      async findAccount(_ctx: unknown, sub: string) {
        if (!Object.hasOwn(users, sub)) return undefined;
        return { accountId: sub, claims: async () => ({ sub }) };
      },
      // Refresh tokens for every client allowed the grant (the default asks for offline_access too), not tied to the
      // login session.
      issueRefreshToken: async (_ctx: unknown, client: any) => client.grantTypeAllowed('refresh_token'),
      expiresWithSession: async () => false,
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      clientBasedCORS,
      renderError,
      ttl: {
        AccessToken: ttl,
        ClientCredentials: ttl,
        RefreshToken: 24 * 60 * 60,
        IdToken: 60 * 60,
        Interaction: 10 * 60,
        Session: 24 * 60 * 60,
        Grant: 24 * 60 * 60,
      },
    });
  } catch (error) {
    // A configuration the library refuses: nothing keeps listening.
    await close();
    throw error;
  }

  provider.use(async (ctx: KoaContext, next: Next) => {
    // An authorization request without `scope` would be granted nothing (access_denied): ask for the resource's.
    if (ctx.path === '/auth' && ctx.method === 'GET' && !ctx.query.scope)
      ctx.query = { ...ctx.query, scope: scopes.join(' ') };
    // Registration has no CORS in oidc-provider; browser clients (the MCP Inspector) register from another origin.
    if (ctx.path === '/reg') {
      ctx.set('Access-Control-Allow-Origin', '*');
      if (ctx.method === 'OPTIONS') {
        ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
        ctx.set('Access-Control-Allow-Headers', 'content-type, authorization');
        ctx.status = 204;
        return;
      }
    }
    const uid = INTERACTION.exec(ctx.path)?.[1];
    if (uid && (ctx.method === 'GET' || ctx.method === 'POST')) return interact(ctx, uid);
    return next();
  });

  async function interact(ctx: KoaContext, uid: string): Promise<void> {
    const interaction = await provider.interactionDetails(ctx.req, ctx.res);
    if (interaction.uid !== uid) throw new errors.SessionNotFound('interaction mismatch');
    const { name: prompt, details } = interaction.prompt;
    if (prompt === 'consent') {
      // Consent is approved at once: every scope, claim and resource scope the request is missing.
      const { params, session } = interaction;
      const grant = interaction.grantId
        ? await provider.Grant.find(interaction.grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
      if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
      for (const [indicator, missing] of Object.entries<string[]>(details.missingResourceScopes ?? {}))
        grant.addResourceScope(indicator, missing.join(' '));
      return redirect(
        ctx,
        await provider.interactionResult(ctx.req, ctx.res, { consent: { grantId: await grant.save() } }),
      );
    }
    if (prompt !== 'login') throw new errors.InvalidRequest(`unsupported prompt ${prompt}`);
    if (ctx.method === 'GET') return loginForm(ctx, uid, false);
    const form = await readForm(ctx.req);
    const login = form.get('login') ?? '';
    if (!Object.hasOwn(users, login) || !same(form.get('password') ?? '', users[login]))
      return loginForm(ctx, uid, true);
    return redirect(ctx, await provider.interactionResult(ctx.req, ctx.res, { login: { accountId: login } }));
  }

  handle = provider.callback();
  return {
    issuer,
    port,
    metadataUrl: `${issuer}/.well-known/oauth-authorization-server`,
    resource,
    publicJwks: { keys: jwks.keys.map(publicHalf) },
    close,
  };
}

// oidc-provider is ES modules only: CommonJS loads it through require(esm) (Node 20.19 on). It warns that Node 20 is
// unsupported; every flow used here works on it (docs/design/auth.md §4.1), so that one line is dropped.
function loadOidcProvider(): { Provider: any; errors: any } {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('oidc-provider WARNING: Unsupported runtime')) return;
    warn.apply(console, args);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('oidc-provider');
  } finally {
    console.warn = warn;
  }
}

function redirect(ctx: KoaContext, location: string): void {
  ctx.status = 303;
  ctx.redirect(location);
}

function loginForm(ctx: KoaContext, uid: string, failed: boolean): void {
  ctx.status = failed ? 401 : 200;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = `<!doctype html><html><head><meta charset="utf-8"><title>Sign in</title></head><body>
<h1>Development authorization server</h1>${failed ? '<p>Wrong user name or password.</p>' : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}" autocomplete="off">
<label>User <input name="login" autofocus></label> <label>Password <input name="password" type="password"></label>
<button type="submit">Sign in</button></form></body></html>`;
}

async function readForm(req: AsyncIterable<Buffer>): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) break;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function same(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

// The library's own defaults, configured so that it does not print a notice for each on first use.
function clientBasedCORS(ctx: any, origin: string, client: any): boolean {
  if (origin === 'null') return false;
  if (ctx.oidc.route === 'userinfo' || client.clientAuthMethod === 'none')
    return client.redirectUris.some((uri: string) => URL.parse(uri)?.origin === origin);
  return false;
}

async function introspectionAllowed(ctx: any, client: any, token: any): Promise<boolean> {
  return !(client.clientAuthMethod === 'none' && token.clientId !== ctx.oidc.client.clientId);
}

async function revocationAllowed(_ctx: unknown, client: any, token: any): Promise<boolean> {
  return token.clientId === client.clientId;
}

// No request parameters in the page: an error description never quotes a token, but a page need not echo input.
function renderError(ctx: KoaContext, out: { error: string; error_description?: string }): void {
  ctx.type = 'html';
  ctx.body = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(out.error)}</title></head><body>
<h1>${escapeHtml(out.error)}</h1><p>${escapeHtml(out.error_description ?? '')}</p></body></html>`;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

function generateSigningKey(alg: DevSigningAlgorithm): DevPrivateJwk {
  const pair =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...(pair.privateKey.export({ format: 'jwk' }) as DevPrivateJwk), kid: randomUUID(), alg, use: 'sig' };
}

function keyFits(key: DevPrivateJwk, alg: DevSigningAlgorithm): boolean {
  if (key.alg !== undefined) return key.alg === alg;
  if (alg === 'ES256') return key.kty === 'EC' && key.crv === 'P-256';
  if (alg === 'EdDSA') return key.kty === 'OKP';
  return key.kty === 'RSA';
}

function publicHalf(key: DevPrivateJwk): Record<string, unknown> {
  const half: Record<string, unknown> = { ...key };
  for (const name of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']) delete half[name];
  return half;
}

// A real OAuth 2.1 authorization server for e2e suites: the demo's development server (oidc-provider) in a child
// process on 127.0.0.1, and the client side of its flows driven from the test with fetch — authorization code with
// PKCE through its login and consent pages (a cookie jar, no browser), client credentials, refresh, registration,
// revocation, introspection. The signing key is made here, so a test can also forge tokens the server never issued.
import { ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { CryptoKey, exportJWK, generateKeyPair } from 'jose';
import type { DevSigningAlgorithm } from '../../apps/demo-server/src/oauth/dev-authorization.server';
import { scrubbedEnv } from './client-peer.process';
import { OIDC_AS_OPTIONS, OIDC_AS_PROCESS } from './oidc-as.process';

export interface AuthServerOptions {
  /** The MCP endpoint's canonical URI (known before the server starts: pick the app's port first). */
  resource: string;
  /** Default `notes:read notes:write admin`. */
  scopes?: string[];
  /** Default `jwt`. */
  format?: 'jwt' | 'opaque';
  /** Default ES256. */
  alg?: DevSigningAlgorithm;
  /** Default 300. */
  accessTokenTtlSeconds?: number;
  /** Of the pre-registered public client. Default `http://127.0.0.1/oauth/callback` (never visited: see browse). */
  redirectUris?: string[];
  /** Default `demo`/`demo`. */
  users?: Record<string, string>;
}

/** A token endpoint's answer. */
export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
  refresh_token?: string;
  id_token?: string;
}

/** An OAuth error answer (RFC 6749 §5.2) from the authorization server. */
export class OAuthRequestError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly errorDescription?: string,
  ) {
    super(`The authorization server answered ${status} ${error}${errorDescription ? `: ${errorDescription}` : ''}`);
  }
}

/** Who signs in at the login page (default: the first configured user). */
export interface Login {
  user?: string;
  password?: string;
}

export interface AuthServerFixture {
  /** `http://127.0.0.1:<port>`: the `authorizationServers` entry of the resource server. */
  issuer: string;
  /** `…/.well-known/oauth-authorization-server`. */
  metadataUrl: string;
  resource: string;
  /** The private key the server signs access tokens with, and its key id: to forge tokens in negative tests. */
  signingKey: CryptoKey;
  kid: string;
  alg: DevSigningAlgorithm;
  publicClient: { clientId: string; redirectUris: string[] };
  serviceClient: { clientId: string; clientSecret: string };
  /** The client a resource server introspects with (`token: { type: 'introspection', … }`). */
  introspectionClient: { clientId: string; clientSecret: string };
  pid: number;
  /** Client credentials grant as the service client (or the client given). */
  clientCredentials(
    scope: string,
    options?: { resource?: string; clientId?: string; clientSecret?: string },
  ): Promise<TokenSet>;
  /** Authorization code with PKCE as the public client: signs in, consents, redeems the code. */
  authorizationCode(
    options: { scope: string; resource?: string; clientId?: string; redirectUri?: string } & Login,
  ): Promise<TokenSet>;
  /** Refresh grant as the public client (or the client given). */
  refresh(refreshToken: string, options?: { resource?: string; clientId?: string }): Promise<TokenSet>;
  /** Dynamic client registration (RFC 7591). */
  register(metadata: Record<string, unknown>): Promise<{ client_id: string; client_secret?: string }>;
  /**
   * Opens an authorization URL as a browser would, signs in, and returns the URL the server redirects to off its
   * own origin (the redirect URI with `code`, `state`, `iss`, or `error`), without visiting it.
   */
  browse(authorizationUrl: URL | string, login?: Login): Promise<URL>;
  /** Token revocation (RFC 7009) as the public client (or the client given). */
  revoke(token: string, client?: { clientId: string; clientSecret?: string }): Promise<void>;
  /** Token introspection (RFC 7662) as the introspection client. */
  introspect(token: string): Promise<Record<string, unknown>>;
  /** Kills the child by its PID (SIGTERM, then SIGKILL after 2 s) and waits for it to exit. */
  stop(): Promise<void>;
}

const FORM = 'application/x-www-form-urlencoded';
const base64url = (bytes: Buffer) => bytes.toString('base64url');

/**
 * Starts the development authorization server for `options.resource` in a child process and resolves once it
 * answers. The child exits on stop(), and by itself when this process goes away.
 */
export async function startAuthServer(options: AuthServerOptions, timeoutMs = 15_000): Promise<AuthServerFixture> {
  const alg = options.alg ?? 'ES256';
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `test-${base64url(randomBytes(6))}`;
  const jwk = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
  const publicClient = {
    clientId: 'conduit-test-public',
    redirectUris: options.redirectUris ?? ['http://127.0.0.1/oauth/callback'],
  };
  const serviceClient = { clientId: 'conduit-test-service', clientSecret: base64url(randomBytes(24)) };
  const introspectionClient = { clientId: 'conduit-test-resource', clientSecret: base64url(randomBytes(24)) };
  const users = options.users ?? { demo: 'demo' };
  const config = {
    resource: options.resource,
    scopes: options.scopes,
    format: options.format,
    alg,
    jwks: { keys: [jwk] },
    accessTokenTtlSeconds: options.accessTokenTtlSeconds,
    publicClient,
    serviceClient,
    introspectionClient,
    users,
  };

  const child = spawn(OIDC_AS_PROCESS.command, OIDC_AS_PROCESS.args, {
    cwd: OIDC_AS_PROCESS.cwd,
    env: scrubbedEnv({ [OIDC_AS_OPTIONS]: JSON.stringify(config) }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stop = stopper(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`The authorization server did not listen within ${timeoutMs} ms:\n${output}`)),
        timeoutMs,
      );
      child.stderr!.on('data', () => {
        const match = /conduit-e2e listening 127\.0\.0\.1 (\d+)/.exec(output);
        if (!match) return;
        clearTimeout(timer);
        resolve(Number(match[1]));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`The authorization server exited (${code}) before listening:\n${output}`));
      });
      child.once('error', reject);
    });
  } catch (error) {
    await stop();
    throw error;
  }

  const issuer = `http://127.0.0.1:${port}`;
  const [firstUser, firstPassword] = Object.entries(users)[0];

  async function tokenRequest(body: Record<string, string>, basic?: { id: string; secret: string }) {
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': FORM, ...(basic ? { authorization: basicAuth(basic.id, basic.secret) } : {}) },
      body: new URLSearchParams(body),
    });
    return (await answer(response)) as unknown as TokenSet;
  }

  function browse(authorizationUrl: URL | string, login: Login = {}): Promise<URL> {
    return browseAuthorization(issuer, authorizationUrl, {
      user: login.user ?? firstUser,
      password: login.password ?? firstPassword,
    });
  }

  return {
    issuer,
    metadataUrl: `${issuer}/.well-known/oauth-authorization-server`,
    resource: options.resource,
    signingKey: privateKey,
    kid,
    alg,
    publicClient,
    serviceClient,
    introspectionClient,
    pid: child.pid!,
    clientCredentials: (scope, o = {}) =>
      tokenRequest(
        { grant_type: 'client_credentials', scope, resource: o.resource ?? options.resource },
        { id: o.clientId ?? serviceClient.clientId, secret: o.clientSecret ?? serviceClient.clientSecret },
      ),
    async authorizationCode(o) {
      const clientId = o.clientId ?? publicClient.clientId;
      const redirectUri = o.redirectUri ?? publicClient.redirectUris[0];
      const resource = o.resource ?? options.resource;
      const verifier = base64url(randomBytes(32));
      const state = base64url(randomBytes(16));
      const url = new URL(`${issuer}/auth`);
      url.search = new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: o.scope,
        state,
        code_challenge: base64url(createHash('sha256').update(verifier).digest()),
        code_challenge_method: 'S256',
        resource,
      }).toString();
      const callback = await browse(url, o);
      const error = callback.searchParams.get('error');
      if (error) throw new OAuthRequestError(303, error, callback.searchParams.get('error_description') ?? undefined);
      // The checks a client makes of the redirect: its own state, and the issuer it asked (RFC 9207).
      if (callback.searchParams.get('state') !== state) throw new Error('The redirect carries another state');
      if (callback.searchParams.get('iss') !== issuer) throw new Error('The redirect names another issuer');
      return tokenRequest({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: clientId,
        resource,
      });
    },
    refresh: (refreshToken, o = {}) =>
      tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: o.clientId ?? publicClient.clientId,
        ...(o.resource ? { resource: o.resource } : {}),
      }),
    async register(metadata) {
      const response = await fetch(`${issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(metadata),
      });
      return (await answer(response)) as { client_id: string; client_secret?: string };
    },
    browse,
    async revoke(token, client = { clientId: publicClient.clientId }) {
      const response = await fetch(`${issuer}/token/revocation`, {
        method: 'POST',
        headers: {
          'content-type': FORM,
          ...(client.clientSecret ? { authorization: basicAuth(client.clientId, client.clientSecret) } : {}),
        },
        body: new URLSearchParams({ token, ...(client.clientSecret ? {} : { client_id: client.clientId }) }),
      });
      if (!response.ok) await answer(response);
      else await response.arrayBuffer();
    },
    async introspect(token) {
      const response = await fetch(`${issuer}/token/introspection`, {
        method: 'POST',
        headers: {
          'content-type': FORM,
          authorization: basicAuth(introspectionClient.clientId, introspectionClient.clientSecret),
        },
        body: new URLSearchParams({ token }),
      });
      return answer(response);
    },
    stop,
  };
}

/**
 * Opens an authorization URL of the development authorization server at `issuer` as a browser would, signing in as
 * `login` at its login page (consent is approved at once), and returns the URL it redirects to off its own origin (the
 * redirect URI with `code`, `state`, `iss`, or `error`), without visiting it.
 */
export async function browseAuthorization(
  issuer: string,
  authorizationUrl: URL | string,
  login: Required<Login>,
): Promise<URL> {
  const jar = new CookieJar();
  const form = new URLSearchParams({ login: login.user, password: login.password });
  let next = new URL(authorizationUrl);
  for (let hop = 0; hop < 12; hop++) {
    if (next.origin !== issuer) return next;
    let response = await jar.fetch(next);
    if (response.status === 200 && next.pathname.startsWith('/interaction/')) {
      await response.text();
      response = await jar.fetch(next, { method: 'POST', headers: { 'content-type': FORM }, body: form });
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || !location) {
      const page = (await response.text()).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');
      throw new Error(`The authorization server answered ${response.status} at ${next.pathname}: ${page.trim()}`);
    }
    await response.arrayBuffer();
    next = new URL(location, next);
  }
  throw new Error('The authorization server redirected too many times');
}

// RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined.
function basicAuth(id: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

/** A JSON answer, or the OAuth error it carries thrown. */
async function answer(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {}
  if (!response.ok)
    throw new OAuthRequestError(
      response.status,
      typeof body.error === 'string' ? body.error : 'unknown_error',
      typeof body.error_description === 'string' ? body.error_description : undefined,
    );
  return body;
}

/** Cookies by name, sent with every request (oidc-provider accepts that; their paths differ). */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  async fetch(url: URL, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const expires = attributes.map((a) => a.trim()).find((a) => /^expires=/i.test(a));
      const gone = expires !== undefined && Date.parse(expires.slice(8)) <= Date.now();
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(at + 1).trim());
    }
    return response;
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.kill(child.pid!, 'SIGTERM');
    const timer = setTimeout(
      () => child.exitCode === null && child.signalCode === null && process.kill(child.pid!, 'SIGKILL'),
      2_000,
    );
    await exited;
    clearTimeout(timer);
  };
}

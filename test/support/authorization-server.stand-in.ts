// A stand-in for what an OAuth client of an MCP server talks to, on one node:http server on 127.0.0.1: a protected
// resource (`/mcp`, its RFC 9728 metadata) and any number of authorization servers (issuer `<origin>/<name>`, their
// RFC 8414 metadata, /register, /authorize, /token). Every request is recorded (query, form, JSON, headers) for the
// test to assert on; each behaviour a client must cope with (no S256, a missing or wrong `iss`, an error answer, a
// migration to another authorization server, a step-up) is a setting. Tokens are random and never printed.
import { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { KeyObject, createHash, randomBytes } from 'node:crypto';
import { jwtVerify } from 'jose';
import { BearerChallenge, formatBearerChallenge } from '@conduit-mcp/core';

/** A client registered beforehand: a secret (client_secret_basic/post), a public key (private_key_jwt), or neither. */
export interface StandInClient {
  clientId: string;
  clientSecret?: string;
  publicKey?: KeyObject;
  /** Default: any redirect URI. */
  redirectUris?: string[];
}

/** How one authorization server behaves (each setting can be changed while a test runs). */
export interface StandInAuthorizationServerSettings {
  /** `scopes_supported`. Default read, write, offline_access. */
  scopesSupported: string[];
  /** `code_challenge_methods_supported`; `undefined` leaves it out. Default S256. */
  codeChallengeMethods: string[] | undefined;
  /** `token_endpoint_auth_methods_supported`. Default none, client_secret_basic, client_secret_post, private_key_jwt. */
  authMethods: string[];
  /** `client_id_metadata_document_supported` (left out when false). Default false. */
  cimd: boolean;
  /** Dynamic registration offered (`registration_endpoint`). Default true. */
  registration: boolean;
  /** `authorization_response_iss_parameter_supported`. Default true. */
  advertiseIss: boolean;
  /** The `iss` of the authorization redirect: this issuer, none, or another one. Default sent. */
  iss: 'sent' | 'omitted' | 'wrong';
  /** Access token lifetime in seconds. Default 3600. */
  expiresIn: number;
  /** Refresh tokens with the authorization code grant. Default true. */
  refreshTokens: boolean;
  /** A refresh answers a new refresh token too. Default false (the old one stays valid). */
  rotateRefreshTokens: boolean;
}

/** What one request was, as the stand-in read it. */
export interface RecordedRequest {
  kind: 'resource-metadata' | 'as-metadata' | 'registration' | 'authorization' | 'token' | 'resource' | 'unknown';
  /** The authorization server's issuer, for its endpoints. */
  issuer?: string;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The query of an authorization, the form of a token request. */
  params: Record<string, string>;
  /** The JSON of a registration. */
  json?: Record<string, unknown>;
  status?: number;
}

/** An access token the stand-in issued, and what it is for. */
export interface IssuedToken {
  accessToken: string;
  refreshToken?: string;
  issuer: string;
  clientId: string;
  scope: string[];
  resource: string;
  expiresAt: number;
  revoked: boolean;
}

interface RegisteredClient extends StandInClient {
  authMethod: string;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string;
  scope: string[];
}

interface Grant {
  clientId: string;
  scope: string[];
  resource: string;
}

interface OAuthError {
  status?: number;
  error: string;
  description?: string;
}

/** One authorization server of the stand-in: `issuer` is `<origin>/<name>`. */
export class StandInAuthorizationServer {
  readonly settings: StandInAuthorizationServerSettings;
  readonly clients = new Map<string, RegisteredClient>();
  private readonly codes = new Map<string, IssuedCode>();
  private readonly refreshTokens = new Map<string, Grant>();
  private readonly failures = new Map<string, OAuthError[]>();
  private registrations = 0;

  constructor(
    readonly issuer: string,
    private readonly name: string,
    private readonly stand: AuthorizationServerStandIn,
    settings: Partial<StandInAuthorizationServerSettings> & { clients?: StandInClient[] },
  ) {
    const { clients = [], ...rest } = settings;
    this.settings = {
      scopesSupported: ['read', 'write', 'offline_access'],
      codeChallengeMethods: ['S256'],
      authMethods: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      cimd: false,
      registration: true,
      advertiseIss: true,
      iss: 'sent',
      expiresIn: 3600,
      refreshTokens: true,
      rotateRefreshTokens: false,
      ...rest,
    };
    for (const client of clients) this.clients.set(client.clientId, { ...client, authMethod: 'preregistered' });
  }

  get tokenEndpoint(): string {
    return `${this.issuer}/token`;
  }

  /** The next request of `grantType` at the token endpoint answers this error. */
  failNext(grantType: string, failure: OAuthError): void {
    this.failures.set(grantType, [...(this.failures.get(grantType) ?? []), failure]);
  }

  /** Every client secret, code and refresh token this server handed out. */
  secrets(): string[] {
    const secrets = [...this.codes.keys(), ...this.refreshTokens.keys()];
    for (const client of this.clients.values()) if (client.clientSecret) secrets.push(client.clientSecret);
    return secrets;
  }

  metadata(): Record<string, unknown> {
    const { settings, issuer } = this;
    return {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: this.tokenEndpoint,
      ...(settings.registration && { registration_endpoint: `${issuer}/register` }),
      scopes_supported: settings.scopesSupported,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: settings.authMethods,
      ...(settings.codeChallengeMethods && { code_challenge_methods_supported: settings.codeChallengeMethods }),
      ...(settings.cimd && { client_id_metadata_document_supported: true }),
      authorization_response_iss_parameter_supported: settings.advertiseIss,
    };
  }

  register(request: RecordedRequest, res: ServerResponse): void {
    if (!this.settings.registration) return json(res, 404, { error: 'not_found' });
    const body = request.json ?? {};
    const authMethod =
      typeof body.token_endpoint_auth_method === 'string' ? body.token_endpoint_auth_method : 'client_secret_basic';
    // Dashes in both: a client must send them as they are in a Basic header (WHATWG form encoding).
    const clientId = `dcr-${this.name}-${++this.registrations}`;
    const clientSecret = authMethod === 'none' ? undefined : `secret-${randomBytes(12).toString('hex')}`;
    const redirectUris = Array.isArray(body.redirect_uris) ? (body.redirect_uris as string[]) : [];
    this.clients.set(clientId, { clientId, clientSecret, redirectUris, authMethod });
    json(res, 201, {
      ...body,
      client_id: clientId,
      ...(clientSecret && { client_secret: clientSecret }),
      token_endpoint_auth_method: authMethod,
    });
  }

  authorize(request: RecordedRequest, res: ServerResponse): void {
    const query = request.params;
    const clientId = query.client_id ?? '';
    const client = this.clients.get(clientId);
    const cimdClient = this.settings.cimd && clientId.startsWith('https://');
    const redirectUri = query.redirect_uri ?? '';
    if ((!client && !cimdClient) || (client?.redirectUris && !client.redirectUris.includes(redirectUri))) {
      // RFC 6749 §4.1.2.1: never redirect to an unverified redirect URI.
      return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect URI' });
    }
    const back = new URL(redirectUri);
    if (query.state !== undefined) back.searchParams.set('state', query.state);
    if (query.response_type !== 'code' || query.code_challenge_method !== 'S256' || !query.code_challenge) {
      back.searchParams.set('error', 'invalid_request');
    } else {
      const code = `code-${randomBytes(12).toString('hex')}`;
      this.codes.set(code, {
        clientId,
        redirectUri,
        challenge: query.code_challenge,
        resource: query.resource ?? '',
        scope: scopesOf(query.scope),
      });
      back.searchParams.set('code', code);
    }
    if (this.settings.iss === 'sent') back.searchParams.set('iss', this.issuer);
    if (this.settings.iss === 'wrong') back.searchParams.set('iss', `${this.issuer}-impostor`);
    res.writeHead(302, { location: back.href }).end();
  }

  async token(request: RecordedRequest, res: ServerResponse): Promise<void> {
    const form = request.params;
    const grantType = form.grant_type ?? '';
    const failure = this.failures.get(grantType)?.shift();
    if (failure) return oauthError(res, failure);
    const clientId = await this.authenticate(form, request.headers.authorization);
    if (clientId === undefined) return oauthError(res, { status: 401, error: 'invalid_client' });
    if (form.resource !== undefined && form.resource !== this.stand.resourceUrl) {
      return oauthError(res, { error: 'invalid_target', description: 'not a resource of this server' });
    }
    let grant: Grant;
    let refresh = false;
    if (grantType === 'authorization_code') {
      const code = this.codes.get(form.code ?? '');
      this.codes.delete(form.code ?? '');
      const verifier = form.code_verifier ?? '';
      if (
        !code ||
        code.clientId !== clientId ||
        code.redirectUri !== form.redirect_uri ||
        code.challenge !== createHash('sha256').update(verifier).digest('base64url') ||
        (form.resource ?? '') !== code.resource
      ) {
        return oauthError(res, { error: 'invalid_grant', description: 'the code is not valid' });
      }
      grant = { clientId, scope: code.scope, resource: code.resource };
      refresh = this.settings.refreshTokens;
    } else if (grantType === 'refresh_token') {
      const held = this.refreshTokens.get(form.refresh_token ?? '');
      if (!held || held.clientId !== clientId) return oauthError(res, { error: 'invalid_grant' });
      grant = { ...held, resource: form.resource ?? held.resource };
      if (this.settings.rotateRefreshTokens) {
        this.refreshTokens.delete(form.refresh_token!);
        refresh = true;
      }
    } else if (grantType === 'client_credentials') {
      if (!this.clients.get(clientId)?.clientSecret && !this.clients.get(clientId)?.publicKey) {
        return oauthError(res, { error: 'unauthorized_client' });
      }
      grant = { clientId, scope: scopesOf(form.scope), resource: form.resource ?? '' };
    } else {
      return oauthError(res, { error: 'unsupported_grant_type' });
    }
    const issued = this.stand.issue(this.issuer, grant, this.settings.expiresIn);
    if (refresh) {
      issued.refreshToken = `refresh-${randomBytes(12).toString('hex')}`;
      this.refreshTokens.set(issued.refreshToken, grant);
    }
    json(
      res,
      200,
      {
        access_token: issued.accessToken,
        token_type: 'Bearer',
        expires_in: this.settings.expiresIn,
        scope: grant.scope.join(' '),
        ...(issued.refreshToken && { refresh_token: issued.refreshToken }),
      },
      { 'cache-control': 'no-store' },
    );
  }

  // The client id the request authenticates as, or undefined: Basic (form-decoded, RFC 6749 §2.3.1), a secret in the
  // form, a private_key_jwt assertion, or none for a public client (or a CIMD client id).
  private async authenticate(form: Record<string, string>, authorization: string | undefined) {
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const [id, secret] = [decoded.slice(0, colon), decoded.slice(colon + 1)].map(formDecode);
      const client = this.clients.get(id);
      return colon > 0 && client?.clientSecret === secret && (form.client_id ?? id) === id ? id : undefined;
    }
    const id = form.client_id ?? '';
    const client = this.clients.get(id);
    if (form.client_assertion !== undefined) {
      if (!client?.publicKey) return undefined;
      try {
        await jwtVerify(form.client_assertion, client.publicKey, {
          issuer: id,
          subject: id,
          audience: [this.issuer, this.tokenEndpoint],
        });
        return form.client_assertion_type === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' ? id : undefined;
      } catch {
        return undefined;
      }
    }
    if (form.client_secret !== undefined) return client?.clientSecret === form.client_secret ? id : undefined;
    if (client) return client.clientSecret || client.publicKey ? undefined : id;
    return this.settings.cimd && id.startsWith('https://') ? id : undefined;
  }
}

/** The stand-in's options. */
export interface StandInOptions {
  /** The protected resource metadata's `scopes_supported`; `undefined` leaves it out. Default read. */
  resourceScopes?: string[];
}

/** The protected resource and its authorization servers. */
export class AuthorizationServerStandIn {
  readonly requests: RecordedRequest[] = [];
  readonly issued: IssuedToken[] = [];
  /** The protected resource metadata's `authorization_servers` (change it to migrate). */
  authorizationServers: string[] = [];
  resourceScopes: string[] | undefined;
  /** The scopes a request to the resource needs: a token without them gets a 403 `insufficient_scope`. */
  requiredScopes: string[] = [];
  private readonly servers = new Map<string, StandInAuthorizationServer>();
  private readonly refusals: Array<{ status: 401 | 403; challenge?: string }> = [];

  private readonly server: Server = createServer((req, res) => {
    void this.handle(req, res).catch((error: Error) => {
      if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: error.message });
    });
  });
  private port = 0;

  private constructor(options: StandInOptions) {
    this.resourceScopes = 'resourceScopes' in options ? options.resourceScopes : ['read'];
  }

  static async start(options: StandInOptions = {}): Promise<AuthorizationServerStandIn> {
    const stand = new AuthorizationServerStandIn(options);
    await new Promise<void>((resolve) => stand.server.listen(0, '127.0.0.1', resolve));
    stand.port = (stand.server.address() as AddressInfo).port;
    return stand;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get resourceUrl(): string {
    return `${this.origin}/mcp`;
  }

  get resourceMetadataUrl(): string {
    return `${this.origin}/.well-known/oauth-protected-resource/mcp`;
  }

  /** Adds the authorization server `<origin>/<name>`; the first one added is the resource's. */
  addAuthorizationServer(
    name: string,
    settings: Partial<StandInAuthorizationServerSettings> & { clients?: StandInClient[] } = {},
  ): StandInAuthorizationServer {
    const as = new StandInAuthorizationServer(`${this.origin}/${name}`, name, this, settings);
    this.servers.set(name, as);
    if (!this.authorizationServers.length) this.authorizationServers = [as.issuer];
    return as;
  }

  /** A challenge as the resource sends it: `resource_metadata` and the parameters given. */
  challenge(parameters: BearerChallenge = {}): string {
    return formatBearerChallenge({ ...parameters, resourceMetadata: this.resourceMetadataUrl });
  }

  /** The next request to the resource is refused so. */
  refuseNext(status: 401 | 403, challenge?: string): void {
    this.refusals.push({ status, challenge });
  }

  /** What a browser does with an authorization URL here: the redirect it lands on (not followed). */
  async browse(url: URL): Promise<URL> {
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status !== 302 || !location) throw new Error(`The authorization answered ${response.status}`);
    return new URL(location);
  }

  /** The requests of one kind (at one authorization server). */
  requestsOf(kind: RecordedRequest['kind'], issuer?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === kind && (issuer === undefined || r.issuer === issuer));
  }

  /** Every token, refresh token, code and client secret handed out, for tests that no message carries one. */
  secrets(): string[] {
    const secrets = this.issued.flatMap((t) => (t.refreshToken ? [t.accessToken, t.refreshToken] : [t.accessToken]));
    for (const as of this.servers.values()) secrets.push(...as.secrets());
    return secrets;
  }

  /** The resource refuses every token issued so far. */
  revokeAll(): void {
    for (const token of this.issued) token.revoked = true;
  }

  issue(issuer: string, grant: Grant, expiresIn: number): IssuedToken {
    const token: IssuedToken = {
      accessToken: `access-${randomBytes(12).toString('hex')}`,
      issuer,
      clientId: grant.clientId,
      scope: grant.scope,
      resource: grant.resource,
      expiresAt: Date.now() + expiresIn * 1000,
      revoked: false,
    };
    this.issued.push(token);
    return token;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.origin);
    const request: RecordedRequest = {
      kind: 'unknown',
      method: req.method ?? 'GET',
      url: url.pathname + url.search,
      headers: req.headers,
      body,
      params: {},
    };
    this.requests.push(request);
    res.on('finish', () => (request.status = res.statusCode));

    if (url.pathname === '/mcp') return this.resource(request, res);
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      request.kind = 'resource-metadata';
      return json(res, 200, {
        resource: this.resourceUrl,
        authorization_servers: this.authorizationServers,
        ...(this.resourceScopes && { scopes_supported: this.resourceScopes }),
      });
    }
    const metadataOf = /^\/\.well-known\/oauth-authorization-server\/([^/]+)$/.exec(url.pathname);
    const asMetadata = metadataOf && this.servers.get(metadataOf[1]);
    if (asMetadata) {
      Object.assign(request, { kind: 'as-metadata', issuer: asMetadata.issuer });
      return json(res, 200, asMetadata.metadata());
    }
    const endpoint = /^\/([^/]+)\/(register|authorize|token)$/.exec(url.pathname);
    const as = endpoint && this.servers.get(endpoint[1]);
    if (!as) return json(res, 404, { error: 'not_found' });
    request.issuer = as.issuer;
    if (endpoint[2] === 'register' && req.method === 'POST') {
      request.kind = 'registration';
      request.json = JSON.parse(body) as Record<string, unknown>;
      return as.register(request, res);
    }
    if (endpoint[2] === 'authorize' && req.method === 'GET') {
      request.kind = 'authorization';
      request.params = Object.fromEntries(url.searchParams);
      return as.authorize(request, res);
    }
    if (endpoint[2] === 'token' && req.method === 'POST') {
      request.kind = 'token';
      request.params = Object.fromEntries(new URLSearchParams(body));
      return as.token(request, res);
    }
    json(res, 405, { error: 'method_not_allowed' });
  }

  // A token the resource's current authorization servers issued for it, unexpired and unrevoked, with the scopes
  // required; else the refusal RFC 6750 §3 describes, with the resource metadata's URL.
  private resource(request: RecordedRequest, res: ServerResponse): void {
    request.kind = 'resource';
    const refusal = this.refusals.shift();
    if (refusal) return void res.writeHead(refusal.status, challengeHeader(refusal.challenge)).end();
    const authorization = request.headers.authorization;
    if (!authorization) return void res.writeHead(401, challengeHeader(this.challenge())).end();
    const token = this.issued.find((t) => `Bearer ${t.accessToken}` === authorization);
    if (
      !token ||
      token.revoked ||
      token.expiresAt <= Date.now() ||
      token.resource !== this.resourceUrl ||
      !this.authorizationServers.includes(token.issuer)
    ) {
      return void res.writeHead(401, challengeHeader(this.challenge({ error: 'invalid_token' }))).end();
    }
    if (!this.requiredScopes.every((scope) => token.scope.includes(scope))) {
      const challenge = this.challenge({ error: 'insufficient_scope', scope: this.requiredScopes });
      return void res.writeHead(403, challengeHeader(challenge)).end();
    }
    json(res, 200, { jsonrpc: '2.0', id: 1, result: { scope: token.scope } });
  }
}

function challengeHeader(challenge: string | undefined): Record<string, string> {
  return challenge === undefined ? {} : { 'www-authenticate': challenge };
}

function scopesOf(scope: string | undefined): string[] {
  return (scope ?? '').split(' ').filter(Boolean);
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function oauthError(res: ServerResponse, failure: OAuthError): void {
  json(res, failure.status ?? 400, {
    error: failure.error,
    ...(failure.description && { error_description: failure.description }),
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(text);
}

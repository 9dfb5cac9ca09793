// Opaque access tokens checked by OAuth 2.0 Token Introspection (RFC 7662) against an introspection endpoint the test
// serves on 127.0.0.1 (with the authorization server's metadata that names it), behind McpModule.forRoot({ auth }) on
// Express: what an answer must say for a token to pass, what is cached and for how long, what the endpoint receives,
// and that its failures are the server's (500), never logged with the token.
import { INestApplication, Injectable, LoggerService, Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpCtx, McpModule, McpRequestContext, McpTool } from '@conduit-mcp/server';
import { resolveAuthOptions } from '../libs/server/src/auth/auth-options.resolve';
import { IntrospectionTokenVerifier } from '../libs/server/src/auth/introspection-token.verifier';
import { createHttpApp } from './support/http-adapters';

const RESOURCE = 'http://127.0.0.1/mcp';
// Characters that RFC 6749 §2.3.1's form-urlencoding changes, so that the test sees it was done.
const CLIENT_ID = 'notes rs';
const CLIENT_SECRET = 'p@ss:w/rd+&é';
const CACHE_TTL_MS = 500;

interface Received {
  authorization: string | undefined;
  contentType: string | undefined;
  form: URLSearchParams;
}

/** An authorization server as a resource server sees it: its metadata and its introspection endpoint, counting. */
class IntrospectionServer {
  server!: Server;
  issuer = '';
  metadataFetches = 0;
  received: Received[] = [];
  /** What the endpoint answers for each token (unknown tokens: inactive). */
  answers = new Map<string, Record<string, unknown>>();
  mode: 'ok' | 'down' | 'not-json' | 'too-large' | 'redirect' = 'ok';
  /** The introspection_endpoint the metadata names, when not this server's. */
  metadataEndpoint: string | undefined;
  holdMs = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.issuer = `${this.origin}/realms/notes`;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  get endpoint(): string {
    return `${this.origin}/introspect`;
  }

  /** The introspection requests made for `token`. */
  requestsFor(token: string): Received[] {
    return this.received.filter((request) => request.form.get('token') === token);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/.well-known/oauth-authorization-server/realms/notes') {
      this.metadataFetches++;
      return this.json(res, { issuer: this.issuer, introspection_endpoint: this.metadataEndpoint ?? this.endpoint });
    }
    if (req.method !== 'POST' || req.url !== '/introspect') return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    this.received.push({ authorization: req.headers.authorization, contentType: req.headers['content-type'], form });
    if (this.holdMs) await sleep(this.holdMs);
    if (!this.clientAuthenticated(req.headers.authorization, form))
      return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
    switch (this.mode) {
      case 'down':
        return void res.writeHead(503).end();
      case 'not-json':
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>oops</html>');
      case 'too-large':
        return this.json(res, { active: true, aud: RESOURCE, padding: 'x'.repeat(200_000) });
      case 'redirect':
        return void res.writeHead(302, { location: `${this.origin}/elsewhere` }).end();
    }
    this.json(res, this.answers.get(form.get('token')!) ?? { active: false });
  }

  // Basic (RFC 6749 §2.3.1: each part form-urlencoded, then base64) or both in the form.
  private clientAuthenticated(authorization: string | undefined, form: URLSearchParams): boolean {
    if (authorization?.startsWith('Basic ')) {
      const [id, secret] = Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':');
      const decode = (value: string) => new URLSearchParams(`v=${value}`).get('v');
      return decode(id) === CLIENT_ID && decode(secret) === CLIENT_SECRET;
    }
    return form.get('client_id') === CLIENT_ID && form.get('client_secret') === CLIENT_SECRET;
  }

  private json(res: ServerResponse, body: unknown): void {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Every line Nest's Logger writes, whatever its level. */
class CapturedLogger implements LoggerService {
  lines: string[] = [];
  private record = (...args: unknown[]) =>
    void this.lines.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
  log = this.record;
  error = this.record;
  warn = this.record;
  debug = this.record;
  verbose = this.record;
  fatal = this.record;
}

describe('opaque access tokens by introspection (RFC 7662)', () => {
  const as = new IntrospectionServer();
  const logger = new CapturedLogger();
  const sent: string[] = [];
  const now = () => Math.floor(Date.now() / 1000);
  let app: INestApplication;
  let url: string;

  @Injectable()
  class Who {
    @McpTool({ name: 'whoami' })
    whoami(@McpCtx() ctx: McpRequestContext) {
      return JSON.stringify(ctx.auth ?? null);
    }
  }

  /** A new token, answered by the endpoint with `answer` over an active token for this resource. */
  function token(answer: Record<string, unknown> = {}): string {
    const value = `opaque-${randomUUID()}`;
    sent.push(value);
    const full: Record<string, unknown> = {
      active: true,
      iss: as.issuer,
      aud: RESOURCE,
      sub: 'alice',
      client_id: 'notes-app',
      scope: 'notes:read notes:write',
      token_type: 'Bearer',
      exp: now() + 300,
      ...answer,
    };
    for (const name of Object.keys(full)) if (full[name] === undefined) delete full[name];
    as.answers.set(value, full);
    return value;
  }

  beforeAll(async () => {
    await as.start();
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'introspection',
          version: '1',
          auth: {
            resource: RESOURCE,
            authorizationServers: [as.issuer],
            // No endpoint: it comes from the authorization server's metadata.
            token: {
              type: 'introspection',
              clientId: CLIENT_ID,
              clientSecret: CLIENT_SECRET,
              cacheTtlMs: CACHE_TTL_MS,
            },
          },
        }),
      ],
      providers: [Who],
    })
    class IntrospectionModule {}
    app = await createHttpApp(IntrospectionModule, 'express', { logger });
    await app.listen(0, '127.0.0.1');
    url = `${await app.getUrl()}/mcp`;
  });
  afterAll(async () => {
    await app?.close();
    await as.stop();
  });
  beforeEach(() => {
    as.mode = 'ok';
    as.holdMs = 0;
  });

  const call = (bearer: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'whoami',
        authorization: `Bearer ${bearer}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'whoami',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });

  async function authOf(response: Response): Promise<Record<string, unknown>> {
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { content: Array<{ text: string }> } };
    return JSON.parse(body.result.content[0].text) as Record<string, unknown>;
  }

  async function expectInvalidToken(response: Response): Promise<void> {
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    await response.body?.cancel();
  }

  it('finds the endpoint in the first authorization server’s metadata, once', async () => {
    await authOf(await call(token()));
    await authOf(await call(token()));
    expect(as.metadataFetches).toBe(1);
  });

  it('accepts an active token for this resource: ctx.auth from the answer', async () => {
    const opaque = token();
    const auth = await authOf(await call(opaque));
    expect(auth).toEqual({
      subject: 'alice',
      clientId: 'notes-app',
      scopes: ['notes:read', 'notes:write'],
      claims: as.answers.get(opaque),
    });
  });

  it('posts the token as a form with its type hint, the client authenticated with Basic (form-urlencoded parts)', async () => {
    const opaque = token();
    await authOf(await call(opaque));
    const [request] = as.requestsFor(opaque);
    expect(request.contentType).toBe('application/x-www-form-urlencoded');
    expect([...request.form.entries()]).toEqual([
      ['token', opaque],
      ['token_type_hint', 'access_token'],
    ]);
    const expected = Buffer.from('notes+rs:p%40ss%3Aw%2Frd%2B%26%C3%A9').toString('base64');
    expect(request.authorization).toBe(`Basic ${expected}`);
  });

  it('refuses an inactive token: 401 invalid_token', async () => {
    const opaque = token({ active: false });
    await expectInvalidToken(await call(opaque));
    expect(as.requestsFor(opaque)).toHaveLength(1);
  });

  it.each([
    ['for another audience', { aud: 'https://other.example/mcp' }],
    ['naming no audience', { aud: undefined }],
    ['from another issuer', { iss: 'https://evil.example' }],
    ['expired', { exp: now() - 10 }],
    ['of another type (a refresh token)', { token_type: 'refresh_token' }],
  ])('refuses an active token %s: 401 invalid_token', async (_, answer) => {
    await expectInvalidToken(await call(token(answer)));
  });

  it('accepts an audience list that includes the resource, and an answer without iss, exp or token_type', async () => {
    expect(await authOf(await call(token({ aud: ['https://other.example', RESOURCE] })))).toMatchObject({
      subject: 'alice',
    });
    const bare = await authOf(await call(token({ iss: undefined, exp: undefined, token_type: undefined })));
    expect(bare).toMatchObject({ subject: 'alice' });
  });

  it('answers a token seen lately from its cache: the second call makes no request', async () => {
    const opaque = token();
    await authOf(await call(opaque));
    await authOf(await call(opaque));
    expect(as.requestsFor(opaque)).toHaveLength(1);
  });

  it('makes one request for ten concurrent calls with the same token', async () => {
    as.holdMs = 300;
    const opaque = token();
    const responses = await Promise.all(Array.from({ length: 10 }, () => call(opaque)));
    for (const response of responses) expect(await authOf(response)).toMatchObject({ subject: 'alice' });
    expect(as.requestsFor(opaque)).toHaveLength(1);
  });

  it('refuses a revoked token once the cache TTL has passed', async () => {
    const opaque = token();
    await authOf(await call(opaque));
    as.answers.set(opaque, { active: false }); // revoked at the authorization server
    // Within the TTL the cached verdict stands (the documented trade-off of caching).
    await authOf(await call(opaque));
    expect(as.requestsFor(opaque)).toHaveLength(1);
    await sleep(CACHE_TTL_MS + 100);
    await expectInvalidToken(await call(opaque));
    expect(as.requestsFor(opaque)).toHaveLength(2);
  });

  it.each([
    ['answers 503', 'down'],
    ['answers something that is not JSON', 'not-json'],
    ['answers more than it may', 'too-large'],
    ['redirects', 'redirect'],
  ] as const)('answers 500 with a generic message when the endpoint %s, and does not remember it', async (_, mode) => {
    as.mode = mode;
    const opaque = token();
    const response = await call(opaque);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: { message: 'Internal error' } });
    expect(text).not.toContain(opaque);
    as.mode = 'ok';
    await authOf(await call(opaque));
    expect(as.requestsFor(opaque)).toHaveLength(2);
  });

  describe('the verifier on its own', () => {
    const verifier = (options: Record<string, unknown> = {}) =>
      new IntrospectionTokenVerifier(
        { type: 'introspection', endpoint: as.endpoint, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...options },
        RESOURCE,
        [as.issuer],
      );

    it('authenticates the client in the form with client_secret_post', async () => {
      const opaque = token();
      expect(await verifier({ clientAuthentication: 'client_secret_post' }).verify(opaque)).toMatchObject({
        subject: 'alice',
      });
      const [request] = as.requestsFor(opaque);
      expect(request.authorization).toBeUndefined();
      expect(request.form.get('client_id')).toBe(CLIENT_ID);
      expect(request.form.get('client_secret')).toBe(CLIENT_SECRET);
      expect(request.form.get('token_type_hint')).toBe('access_token');
    });

    it('accepts the audiences and issuers configured instead of the defaults', async () => {
      const forApi = token({ aud: 'api://notes', iss: 'https://idp.example.com' });
      expect(await verifier().verify(forApi)).toBeUndefined();
      const configured = verifier({ audiences: ['api://notes'], issuers: ['https://idp.example.com'] });
      expect(await configured.verify(forApi)).toMatchObject({ subject: 'alice' });
    });

    it('fails with a fixed message, naming neither the token nor the secret, when the endpoint is unreachable', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as { port: number }).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const opaque = token();
      const failure = await verifier({ endpoint: `http://127.0.0.1:${port}/introspect` })
        .verify(opaque)
        .then(
          () => undefined,
          (error: Error) => error,
        );
      expect(failure?.message).toMatch(/^Token introspection failed: it could not be reached/);
      expect(failure?.message).not.toContain(opaque);
      expect(failure?.message).not.toContain(CLIENT_SECRET);
    });

    it('will not send its secret to a discovered endpoint that is not https', async () => {
      as.metadataEndpoint = 'http://idp.example.com/introspect';
      try {
        await expect(verifier({ endpoint: undefined }).verify(token())).rejects.toThrow(
          /introspection_endpoint that is not usable: it must use https/,
        );
      } finally {
        as.metadataEndpoint = undefined;
      }
    });

    it('counts a refused client authentication as the endpoint failing, not the token', async () => {
      await expect(verifier({ clientSecret: 'wrong' }).verify(token())).rejects.toThrow(
        'Token introspection failed: it answered HTTP 401',
      );
    });
  });

  it.each([
    ['without a client id', { clientId: undefined }, /token\.clientId is required/],
    ['with an empty client secret', { clientSecret: '' }, /token\.clientSecret is required/],
    [
      'with a relative endpoint',
      { endpoint: '/introspect' },
      /token\.endpoint is not usable: it is not an absolute URL/,
    ],
    ['with a plain http endpoint off loopback', { endpoint: 'http://idp.example.com/i' }, /must use https/],
    ['with credentials in the endpoint', { endpoint: 'https://u:p@idp.example.com/i' }, /must not carry credentials/],
    ['with an unknown client authentication', { clientAuthentication: 'private_key_jwt' }, /clientAuthentication/],
    ['with a negative cache TTL', { cacheTtlMs: -1 }, /token\.cacheTtlMs must be a whole number/],
    ['with a fractional cache size', { maxCacheEntries: 1.5 }, /token\.maxCacheEntries must be a whole number/],
    ['with an issuer that is not a URI', { issuers: ['notes'] }, /token\.issuers has "notes"/],
    ['with audiences that are not strings', { audiences: [42] }, /token\.audiences/],
  ])('refuses, at start-up, introspection options %s', (_, change, message) => {
    const auth = {
      resource: RESOURCE,
      authorizationServers: ['https://idp.example.com'],
      token: { type: 'introspection', clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...change },
    };
    expect(() => resolveAuthOptions('startup', auth as never)).toThrow(message);
    expect(() => resolveAuthOptions('startup', auth as never)).not.toThrow(/u:p|p@ss/);
    const valid = { ...auth, token: { type: 'introspection', clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } };
    expect(() => resolveAuthOptions('startup', valid as never)).not.toThrow();
  });

  it('never wrote a token or the client secret to the log', () => {
    // The failures above were logged (the gate logs why the authenticator failed): the capture saw them.
    expect(logger.lines.some((line) => line.includes('Token introspection failed'))).toBe(true);
    const log = logger.lines.join('\n');
    for (const value of sent) expect(log).not.toContain(value);
    expect(log).not.toContain(CLIENT_SECRET);
    expect(log).not.toContain(Buffer.from(CLIENT_SECRET).toString('base64'));
  });
});

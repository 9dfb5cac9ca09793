// JWT access tokens verified with jose against a real authorization server's metadata and key set, served over HTTP
// on 127.0.0.1 by the test: each way a token can be wrong is "not valid" (401), the key source failing is the
// server's fault (500), and a valid token reaches the handler as ctx.auth.
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { CryptoKey, JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { McpCtx, McpModule, McpRequestContext, McpTool } from '@conduit-mcp/server';
import { JwtTokenVerifier } from '../libs/server/src/auth/jwt-token.verifier';
import { createHttpApp } from './support/http-adapters';

const RESOURCE = 'http://127.0.0.1/mcp';

/** An authorization server as a resource server sees it: its metadata and its key set, counting the fetches. */
class KeyServer {
  server!: Server;
  issuer = '';
  fetches: string[] = [];
  keys: JWK[] = [];
  metadataIssuer: string | undefined;
  down = false;

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      this.fetches.push(req.url!);
      if (this.down) return void res.writeHead(503).end();
      const json = (body: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/.well-known/oauth-authorization-server/realms/notes')
        return json({ issuer: this.metadataIssuer ?? this.issuer, jwks_uri: `${this.origin}/jwks` });
      if (req.url === '/jwks') return json({ keys: this.keys });
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.issuer = `${this.origin}/realms/notes`;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('JWT access tokens (jose)', () => {
  const as = new KeyServer();
  let signing: CryptoKey;
  let other: CryptoKey;
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    await as.start();
    const pair = await generateKeyPair('ES256', { extractable: true });
    signing = pair.privateKey;
    other = (await generateKeyPair('ES256')).privateKey;
    as.keys = [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }];
  });
  afterAll(() => as.stop());
  beforeEach(() => {
    as.fetches = [];
    as.down = false;
    as.metadataIssuer = undefined;
  });

  // Every claim given overrides the default; one given as undefined is left out.
  function token(claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}, key = signing) {
    const payload: Record<string, unknown> = {
      iss: as.issuer,
      sub: 'alice',
      aud: RESOURCE,
      iat: now(),
      exp: now() + 300,
      scope: 'notes:read notes:write',
      client_id: 'notes-app',
      ...claims,
    };
    for (const name of Object.keys(payload)) if (payload[name] === undefined) delete payload[name];
    return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1', ...header }).sign(key);
  }

  const verifier = (options: Record<string, unknown> = {}) =>
    new JwtTokenVerifier({ type: 'jwt', ...options }, RESOURCE, [as.issuer]);

  it('accepts a token of the issuer, for this resource: subject, client, scopes and claims', async () => {
    const auth = await verifier().verify(await token());
    expect(auth).toMatchObject({ subject: 'alice', clientId: 'notes-app', scopes: ['notes:read', 'notes:write'] });
    expect(auth!.claims).toMatchObject({ iss: as.issuer, aud: RESOURCE, sub: 'alice' });
    // The keys were found through the issuer's metadata (RFC 8414, the well-known path before the issuer's path).
    expect(as.fetches).toEqual(['/.well-known/oauth-authorization-server/realms/notes', '/jwks']);
  });

  it.each([
    ['expired beyond the tolerance', async () => token({ exp: now() - 30 })],
    ['not valid yet', async () => token({ nbf: now() + 60 })],
    ['for another audience', async () => token({ aud: 'https://other.example/mcp' })],
    ['from another issuer', async () => token({ iss: 'https://evil.example' })],
    ['without exp', async () => token({ exp: undefined })],
    ['signed by another key under the same kid', async () => token({}, {}, other)],
    [
      'tampered with',
      async () => {
        const [header, payload, signature] = (await token()).split('.');
        const forged = Buffer.from(
          JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'root' }),
        );
        return `${header}.${forged.toString('base64url')}.${signature}`;
      },
    ],
    [
      'unsigned (alg none)',
      async () => {
        const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
        return `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode({ iss: as.issuer, aud: RESOURCE, sub: 'alice', exp: now() + 60 })}.`;
      },
    ],
    [
      'signed with the public key as an HMAC secret (HS256)',
      async () =>
        new SignJWT({ sub: 'alice' })
          .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
          .setIssuer(as.issuer)
          .setAudience(RESOURCE)
          .setExpirationTime(now() + 60)
          .sign(Buffer.from(JSON.stringify(as.keys[0]))),
    ],
    ['not a JWT at all', async () => 'opaque-token-123'],
  ])('refuses a token %s (not valid: 401, not an error)', async (_, make) => {
    expect(await verifier().verify(await make())).toBeUndefined();
  });

  it('tolerates a few seconds of clock skew, and only that', async () => {
    expect(await verifier().verify(await token({ exp: now() - 2 }))).toBeDefined();
    expect(await verifier({ clockToleranceSeconds: 0 }).verify(await token({ exp: now() - 2 }))).toBeUndefined();
  });

  it('accepts the audiences configured besides the resource', async () => {
    const tokenForApi = await token({ aud: 'api://notes' });
    expect(await verifier().verify(tokenForApi)).toBeUndefined();
    expect(await verifier({ audiences: ['api://notes'] }).verify(tokenForApi)).toBeDefined();
  });

  it('does not let forged key ids make it fetch the key set again within the cooldown', async () => {
    const jwt = verifier({ jwksUri: `${as.origin}/jwks` });
    expect(await jwt.verify(await token())).toBeDefined();
    expect(await jwt.verify(await token({}, { kid: 'rotated' }))).toBeUndefined();
    expect(await jwt.verify(await token({}, { kid: 'another' }))).toBeUndefined();
    // jwksUri configured: no metadata; the set was fetched just now, so unknown kids within the cooldown (30 s) do
    // not fetch it again.
    expect(as.fetches).toEqual(['/jwks']);
  });

  it('fails (a server fault, not a 401) when the keys cannot be had, and tries again on the next request', async () => {
    as.down = true;
    const jwt = verifier();
    await expect(jwt.verify(await token())).rejects.toThrow(/No usable metadata/);
    as.down = false;
    expect(await jwt.verify(await token())).toBeDefined();
  });

  it('refuses metadata that names another issuer (RFC 8414 §3.3)', async () => {
    as.metadataIssuer = 'https://evil.example';
    await expect(verifier().verify(await token())).rejects.toThrow(/names issuer/);
  });

  describe('through McpModule.forRoot({ auth: { token: { type: "jwt" } } })', () => {
    let app: INestApplication;
    let url: string;

    @Injectable()
    class Who {
      @McpTool({ name: 'whoami' })
      whoami(@McpCtx() ctx: McpRequestContext) {
        return `${ctx.auth?.subject} ${ctx.auth?.scopes.join(',')}`;
      }
    }

    beforeAll(async () => {
      @Module({
        imports: [
          McpModule.forRoot({
            name: 'jwt',
            version: '1',
            auth: { resource: RESOURCE, authorizationServers: [as.issuer], token: { type: 'jwt' } },
          }),
        ],
        providers: [Who],
      })
      class JwtModule {}
      app = await createHttpApp(JwtModule, 'express');
      await app.listen(0, '127.0.0.1');
      url = `${await app.getUrl()}/mcp`;
    });
    afterAll(() => app?.close());

    const call = async (bearer: string) =>
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

    it('serves a valid token, and answers an expired one 401 invalid_token', async () => {
      const ok = await call(await token());
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ result: { content: [{ text: 'alice notes:read,notes:write' }] } });
      const expired = await call(await token({ exp: now() - 60 }));
      expect(expired.status).toBe(401);
      expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    });

    it('keeps serving with the keys it has while the authorization server is unreachable', async () => {
      as.down = true;
      const response = await call(await token({ iss: as.issuer, sub: 'bob' }));
      // The keys of the issuer were read already: a known key still verifies without the server.
      expect(response.status).toBe(200);
    });
  });

  it('refuses, at start-up, algorithms that are not asymmetric and a large clock tolerance', () => {
    expect(JwtTokenVerifier.checkOptions({ type: 'jwt', algorithms: ['HS256'] })).toMatch(/asymmetric/);
    expect(JwtTokenVerifier.checkOptions({ type: 'jwt', algorithms: ['none'] })).toMatch(/asymmetric/);
    expect(JwtTokenVerifier.checkOptions({ type: 'jwt', clockToleranceSeconds: 120 })).toMatch(/0 to 60/);
    expect(
      JwtTokenVerifier.checkOptions({ type: 'jwt', algorithms: ['ES256'], clockToleranceSeconds: 5 }),
    ).toBeUndefined();
  });
});

// McpModule.forRoot({ auth }) with a verifier of the app's: the protected resource metadata (RFC 9728) beside the
// endpoint, and every request's Bearer token checked before any JSON-RPC work — on the server mount, as Express
// routes and as Fastify routes. The official SDK 1.x client reads the metadata and calls tools with a token.
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { McpAuthInfo, McpCtx, McpModule, McpRequestContext, McpTool, TransportFacts } from '@conduit-mcp/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import { createHttpApp, freePort, HTTP_MOUNTS } from './support/http-adapters';

const TOKENS: Record<string, McpAuthInfo> = {
  'alice-token': { subject: 'alice', clientId: 'notes-app', scopes: ['notes:read'], claims: { sub: 'alice' } },
};
const verified: Array<{ token: string; facts: TransportFacts }> = [];
const verifier = {
  type: 'custom' as const,
  verify(token: string, facts: TransportFacts) {
    verified.push({ token, facts });
    if (token === 'crash') throw new Error('authorization server unreachable');
    // A verifier may hand back the token; the server keeps it only with exposeToken.
    return TOKENS[token] && { ...TOKENS[token], token };
  },
};

@Injectable()
class WhoTools {
  @McpTool({ name: 'whoami', description: 'Who the token speaks for' })
  whoami(@McpCtx() ctx: McpRequestContext) {
    return JSON.stringify(ctx.auth ?? null);
  }
}

describe.each(HTTP_MOUNTS)('an OAuth-protected server (%s adapter, %s mount)', (adapter, mount) => {
  let app: INestApplication;
  let base: string;
  let url: string;
  let resource: string;
  const metadataPath = '/.well-known/oauth-protected-resource/mcp';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    url = resource = `${base}/mcp`;
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'notes',
          version: '1.0.0',
          http: { mount },
          auth: {
            resource,
            authorizationServers: ['https://idp.example.com/realms/notes'],
            token: verifier,
            scopesSupported: ['notes:read', 'notes:write'],
            challengeScope: ['notes:read'],
            resourceName: 'Notes',
          },
        }),
      ],
      providers: [WhoTools],
    })
    class ProtectedModule {}
    app = await createHttpApp(ProtectedModule, adapter);
    await app.listen(port, '127.0.0.1');
  });

  afterAll(() => app?.close());
  beforeEach(() => (verified.length = 0));

  const metadata = () => ({
    resource,
    authorization_servers: ['https://idp.example.com/realms/notes'],
    bearer_methods_supported: ['header'],
    scopes_supported: ['notes:read', 'notes:write'],
    resource_name: 'Notes',
  });
  const initialize = (headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });

  it('serves the protected resource metadata at the path form and the root form, to anyone, no token needed', async () => {
    for (const path of [metadataPath, '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${base}${path}`, { headers: { origin: 'https://inspector.example' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual(metadata());
    }
    const head = await fetch(`${base}${metadataPath}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(`${base}${metadataPath}`, { method: 'OPTIONS' })).status).toBe(204);
    const post = await fetch(`${base}${metadataPath}`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(verified).toEqual([]);
  });

  it('refuses the metadata to a Host it does not serve (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) =>
      request(`${base}${metadataPath}`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
        .on('error', reject)
        .end(),
    );
    expect(status).toBe(403);
  });

  it('is found by the SDK 1.x client’s discovery', async () => {
    expect(await discoverOAuthProtectedResourceMetadata(url)).toEqual(metadata());
  });

  it('answers a request without a token 401, naming where the metadata is and the scope to ask for', async () => {
    for (const headers of [{}, { authorization: 'Basic dXNlcjpwYXNz' }] as Array<Record<string, string>>) {
      const response = await initialize(headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer scope="notes:read", resource_metadata="${base}${metadataPath}"`,
      );
      expect(await response.json()).toMatchObject({ error: { code: -32000, message: 'Unauthorized' } });
    }
    const stream = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(stream.status).toBe(401);
    expect(verified).toEqual([]);
  });

  it('answers a malformed Authorization header invalid_request, and a token the verifier refuses invalid_token', async () => {
    const malformed = await initialize({ authorization: 'Bearer two words' });
    expect(malformed.status).toBe(401);
    expect(malformed.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_request", /);
    const refused = await initialize({ authorization: 'Bearer forged-token' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="The access token is invalid", resource_metadata="${base}${metadataPath}"`,
    );
    expect(verified.map((call) => call.token)).toEqual(['forged-token']);
    expect(verified[0].facts.headers.authorization).toBe('Bearer forged-token');
  });

  it('answers 500, without details, when the verifier itself fails', async () => {
    const response = await initialize({ authorization: 'Bearer crash' });
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).not.toMatch(/unreachable/);
  });

  it('serves a client with a valid token: the SDK 1.x client calls a tool, ctx.auth says who, without the token', async () => {
    const client = new Client({ name: 'notes-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: 'Bearer alice-token' } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      const auth = JSON.parse((result.content as Array<{ text: string }>)[0].text);
      expect(auth).toEqual({
        subject: 'alice',
        clientId: 'notes-app',
        scopes: ['notes:read'],
        claims: { sub: 'alice' },
      });
    } finally {
      await client.close();
    }
    expect(verified.length).toBeGreaterThan(1); // every request, not the first one only
    expect(new Set(verified.map((call) => call.token))).toEqual(new Set(['alice-token']));
  });
});

describe('the auth option at start-up', () => {
  async function start(auth: Record<string, unknown>, http: Record<string, unknown> = {}) {
    @Module({ imports: [McpModule.forRoot({ name: 'bad', version: '1', http, auth: auth as never })] })
    class BadModule {}
    const app = await createHttpApp(BadModule, 'express', { logger: false, abortOnError: false });
    await app.close();
  }
  const good = {
    resource: 'https://mcp.example.com/mcp',
    authorizationServers: ['https://idp.example.com'],
    token: verifier,
  };

  it.each([
    ['a resource that is not canonical', { ...good, resource: 'http://mcp.example.com/mcp' }, /https/],
    ['a resource with a fragment', { ...good, resource: 'https://mcp.example.com/mcp#x' }, /fragment/],
    ['no authorization server', { ...good, authorizationServers: [] }, /at least one/],
    ['no verifier', { ...good, token: { type: 'custom' } }, /verify/],
    ['offline_access in the metadata', { ...good, scopesSupported: ['offline_access'] }, /offline_access/],
    ['a scope with a space', { ...good, challengeScope: ['notes read'] }, /OAuth scopes/],
  ])('refuses %s, naming the server and the option', async (_, auth, problem) => {
    await expect(start(auth)).rejects.toThrow(problem);
    await expect(start(auth)).rejects.toThrow(/MCP server "bad": auth\./);
  });

  it('refuses auth beside http.authenticator', async () => {
    await expect(start(good, { authenticator: { authenticate: () => ({ ok: true }) } })).rejects.toThrow(
      /auth and http.authenticator exclude each other/,
    );
  });
});

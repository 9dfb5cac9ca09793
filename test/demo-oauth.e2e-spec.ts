// `npm run start:oauth` as a person runs it: the built demo in `--oauth` mode, a child process with its own
// development authorization server, driven from here as a browser and an MCP client would drive them: the 401 and
// its metadata, the login page (demo/demo) with the pre-registered public client and PKCE, tokens whose scopes decide
// what is listed and what may be called, a client that registers itself as the MCP Inspector does, and a clean exit.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { decodeJwt } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RpcAnswer, legacySessionOf, postRpc } from './support/bearer-rpc';
import { TestOAuthClientProvider } from './support/oauth-client.provider';
import { browseAuthorization } from './support/oidc-as.fixture';
import { OAUTH_DEMO_TOOLS, useOAuthDemo } from './support/oauth-demo.process';

const FORM = 'application/x-www-form-urlencoded';
const DEMO_USER = { user: 'demo', password: 'demo' };
const INSPECTOR_CALLBACK = 'http://localhost:6274/oauth/callback';

/** Whether anything accepts connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
      .once('error', () => resolve(true))
      .listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

describe('npm run start:oauth: the demo behind OAuth, with its development authorization server', () => {
  const demo = useOAuthDemo(170_000, 180_000);

  const post = (token: string | undefined, body: object, headers: Record<string, string> = {}) =>
    postRpc(demo.resource, token, body, headers);
  const session = (token: string) => legacySessionOf(demo.resource, token);

  const toolNames = (answer: RpcAnswer) =>
    ((answer.result?.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name).sort();

  /** Authorization code with PKCE as the pre-registered public client, through the login page; the token set. */
  async function signIn(scope: string): Promise<{ access_token: string; scope: string; refresh_token?: string }> {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const authorization = new URL(`${demo.issuer}/auth`);
    authorization.search = new URLSearchParams({
      client_id: 'conduit-demo',
      response_type: 'code',
      redirect_uri: INSPECTOR_CALLBACK,
      scope,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: demo.resource,
    }).toString();
    const callback = await browseAuthorization(demo.issuer, authorization, DEMO_USER);
    expect(`${callback.origin}${callback.pathname}`).toBe(INSPECTOR_CALLBACK);
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(demo.issuer);
    const response = await fetch(`${demo.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        code_verifier: verifier,
        redirect_uri: INSPECTOR_CALLBACK,
        client_id: 'conduit-demo',
        resource: demo.resource,
      }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { access_token: string; scope: string };
  }

  it('prints both URLs, the user, the pre-registered client, and that it is for development only', () => {
    const output = demo.output();
    expect(output).toContain(`MCP endpoint (OAuth): ${demo.resource}`);
    expect(output).toContain(`Authorization server: ${demo.issuer}`);
    expect(output).toContain('Sign in as demo / demo');
    expect(output).toContain('pre-registered public client "conduit-demo"');
    expect(output).toMatch(/Development only/);
  });

  it('answers a request without a token 401 with the metadata URL; the metadata names the AS and the scopes', async () => {
    const refused = await post(undefined, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const metadataUrl = `http://127.0.0.1:${demo.port}/.well-known/oauth-protected-resource/mcp`;
    expect(refused.status).toBe(401);
    expect(refused.challenge).toBe(`Bearer resource_metadata="${metadataUrl}"`);

    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: demo.resource, authorization_servers: [demo.issuer] });
    expect((metadata.scopes_supported as string[]).sort()).toEqual(['admin', 'notes:read', 'notes:write']);

    const server = (await (await fetch(`${demo.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(server).toMatchObject({
      issuer: demo.issuer,
      registration_endpoint: `${demo.issuer}/reg`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('code + PKCE as conduit-demo: the token lists what notes:read notes:write allow, and add_note works', async () => {
    const tokens = await signIn('notes:read notes:write');
    expect(tokens.scope).toBe('notes:read notes:write');
    expect(decodeJwt(tokens.access_token)).toMatchObject({ iss: demo.issuer, aud: demo.resource, sub: 'demo' });
    const rpc = await session(tokens.access_token);
    // reset_notes needs admin.
    expect(toolNames(await rpc('tools/list'))).toEqual(OAUTH_DEMO_TOOLS.filter((name) => name !== 'reset_notes'));

    const added = await rpc('tools/call', { name: 'add_note', arguments: { title: 'From OAuth', body: 'x' } });
    expect(added.status).toBe(200);
    const link = (added.result?.content as Array<{ uri: string }>)[0];
    expect(link.uri).toMatch(/^notes:\/\/notes\/n\d+$/);
    const read = await rpc('resources/read', { uri: link.uri });
    expect((read.result?.contents as Array<{ text: string }>)[0].text).toContain('# From OAuth');
  });

  it('notes:read only: add_note is neither listed nor callable (403 insufficient_scope naming notes:write)', async () => {
    const tokens = await signIn('notes:read');
    const rpc = await session(tokens.access_token);
    expect(toolNames(await rpc('tools/list'))).toEqual(['forecast', 'summarize_forecast', 'weather_report']);
    expect(await rpc('resources/read', { uri: 'notes://index' })).toMatchObject({ status: 200 });

    const refused = await rpc('tools/call', { name: 'add_note', arguments: { title: 'No', body: 'x' } });
    expect(refused.status).toBe(403);
    expect(refused.error).toMatchObject({ code: -32000, data: { requiredScopes: ['notes:write'] } });
    expect(refused.challenge).toMatch(/^Bearer error="insufficient_scope", /);
    expect(refused.challenge).toContain('scope="notes:write"');
  });

  it('admin: reset_notes is listed and runs with the token alone (no admin key); admin implies the notebook scopes', async () => {
    const rpc = await session((await signIn('admin')).access_token);
    expect(toolNames(await rpc('tools/list'))).toEqual(OAUTH_DEMO_TOOLS);
    const reset = await rpc('tools/call', { name: 'reset_notes', arguments: {} });
    expect((reset.result?.content as Array<{ text: string }>)[0].text).toMatch(/^Deleted \d+ notes\.$/);
  });

  it('an SDK client that registers itself, as the Inspector does: discovery, registration, sign-in, every tool', async () => {
    const oauth = new TestOAuthClientProvider({
      browse: (url) => browseAuthorization(demo.issuer, url, DEMO_USER),
      redirectUrl: INSPECTOR_CALLBACK,
    });
    const first = new StreamableHTTPClientTransport(new URL(demo.resource), { authProvider: oauth });
    await expect(new Client({ name: 'inspector-like', version: '1' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await first.finishAuth(oauth.takeCallback().searchParams.get('code')!);
    expect(oauth.registrations).toBe(1);
    const client = new Client({ name: 'inspector-like', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(demo.resource), { authProvider: oauth }));
    try {
      // It asked for the metadata's scopes_supported: all three.
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(OAUTH_DEMO_TOOLS);
    } finally {
      await client.close();
    }
  });

  it("answers the Inspector's CORS preflight on /mcp", async () => {
    const preflight = await fetch(demo.resource, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
  });

  it('stops on SIGTERM with exit code 0, leaving nothing listening on either port', async () => {
    process.kill(demo.child.pid!, 'SIGTERM');
    expect(await demo.exited).toBe(0);
    expect(await listening(demo.authPort)).toBe(false);
    expect(await listening(demo.port)).toBe(false);
  });
});

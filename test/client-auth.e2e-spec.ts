// The client library's OAuth 2.1 client (`transport.auth: McpOAuthOptions`) against a real authorization server (the
// demo's oidc-provider, in a child process) and a Conduit server protecting scoped tools with its JWTs, in both eras:
// a 401 leads to discovery, dynamic registration and the code flow with PKCE for the MCP URL (the test plays the
// browser); a 403 insufficient_scope to a second authorization for the union of the scopes; a short-lived token to
// refresh grants rather than logins. Every request the client sends is logged off node:http's diagnostics channel,
// without headers or bodies.
import { Injectable } from '@nestjs/common';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { decodeJwt } from 'jose';
import {
  McpAuthorizationError,
  McpClientError,
  McpOAuthOptions,
  McpRegisteredClient,
  McpStoredTokens,
  MemoryTokenStore,
} from '@conduit-mcp/client';
import { McpScopes, McpTool } from '@conduit-mcp/server';
import { ClientApp, startClientApp } from './support/client-app';
import { freePort } from './support/http-adapters';
import { NoteTools, startNotesServer } from './support/notes-resource.server';
import { AuthServerFixture, AuthServerOptions, browseAuthorization, startAuthServer } from './support/oidc-as.fixture';
import { errorOf, textOf } from './support/results';

const REDIRECT_URI = 'http://127.0.0.1/oauth/callback';
const ERAS = [
  ['legacy', '2025-11-25'],
  ['modern', '2026-07-28'],
] as const;

/** The notes, and a tool no token can ever carry the scope of: the authorization server does not know it. */
@Injectable()
class PurgeableNoteTools extends NoteTools {
  @McpTool({ name: 'purge', description: 'Removes every note' })
  @McpScopes('notes:purge')
  purge() {
    this.notes.length = 0;
    return 'purged';
  }
}

/** `METHOD URL STATUS` of every response node:http gives this process's clients; no header or body is kept. */
class WireLog {
  readonly entries: string[] = [];
  private readonly record = (message: unknown) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    this.entries.push(
      `${request.method} ${request.protocol}//${request.getHeader('host')}${request.path} ${response.statusCode}`,
    );
  };

  constructor() {
    subscribe('http.client.response.finish', this.record);
  }

  /** The entries from `start` on, but the legacy era's standalone GET stream (it opens whenever it likes). */
  since(start: number, endpoint: string): string[] {
    return this.entries.slice(start).filter((entry) => !entry.startsWith(`GET ${endpoint} `));
  }

  close(): void {
    unsubscribe('http.client.response.finish', this.record);
  }
}

/** A token store that keeps every token set it was given, in order (the client's own view of its grants). */
class RecordingTokenStore extends MemoryTokenStore {
  readonly saved: McpStoredTokens[] = [];

  override set(...args: Parameters<MemoryTokenStore['set']>): void {
    this.saved.push(args[1]);
    super.set(...args);
  }

  get latest(): McpStoredTokens {
    return this.saved[this.saved.length - 1];
  }
}

interface Stack {
  as: AuthServerFixture;
  resource: string;
  prm: string;
  client: ClientApp;
  /** Every authorization URL the client sent the "person" to, in order. */
  urls: URL[];
  store: RecordingTokenStore;
  log: WireLog;
  registered(): McpRegisteredClient;
}

const scopesOf = (token: string) => String(decodeJwt(token).scope ?? '').split(' ');
const names = (tools: Array<{ name: string }>) => tools.map((tool) => tool.name).sort();

describe.each(ERAS)('McpClient doing OAuth against oidc-provider and a Conduit server (%s era)', (era, revision) => {
  const running: Array<() => unknown> = [];

  afterEach(async () => {
    // Last started, first stopped; one failing to stop does not keep the others running.
    const failures: unknown[] = [];
    for (const stop of running.splice(0).reverse())
      await Promise.resolve()
        .then(stop)
        .catch((e) => failures.push(e));
    if (failures.length) throw failures[0];
  });

  // A modern-era call to a tool not listed yet lists the tools first, for the headers it may declare (none here).
  const modernListing = () => (era === 'modern' ? [expect.stringMatching(/^POST \S+\/mcp 200$/)] : []);

  /** The authorization server, the server (express, server mount) and a client app for it, each stopped afterwards. */
  async function start(asOptions: Partial<AuthServerOptions> = {}): Promise<Stack> {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const as = await startAuthServer({ resource, scopes: ['notes:read', 'notes:write'], ...asOptions });
    running.push(() => as.stop());

    const server = await startNotesServer({
      port,
      tools: PurgeableNoteTools,
      auth: {
        resource,
        authorizationServers: [as.issuer],
        token: { type: 'jwt' },
        // What a client asks for first; notes:write comes by step-up when a call is refused.
        scopesSupported: ['notes:read'],
      },
    });
    running.push(() => server.close());

    const log = new WireLog();
    running.push(() => log.close());
    const urls: URL[] = [];
    const store = new RecordingTokenStore();
    const auth: McpOAuthOptions = {
      allowInsecureLoopback: true,
      redirectUri: REDIRECT_URI,
      tokenStore: store,
      onAuthorizationUrl: (url) => {
        urls.push(url);
        return browseAuthorization(as.issuer, url, { user: 'demo', password: 'demo' });
      },
    };
    const client = await startClientApp({
      id: 'notes',
      transport: { type: 'http', url: resource, auth },
      era,
      connectOnStart: false,
    });
    running.push(() => client.close());
    return {
      as,
      resource,
      prm: `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`,
      client,
      urls,
      store,
      log,
      registered: () => store.getClient(as.issuer)!,
    };
  }

  it('connects after one authorization: discovery, registration, the code flow with PKCE for the MCP URL', async () => {
    const { as, resource, prm, client, urls, store, log, registered } = await start();
    await client.client.connect();
    expect(client.client).toMatchObject({ state: 'connected', era, protocolVersion: revision });
    expect(names(await client.client.listTools())).toEqual(['list_notes', 'whoami']);

    expect(log.since(0, resource).slice(0, 6)).toEqual([
      `POST ${resource} 401`,
      `GET ${prm} 200`,
      `GET ${as.issuer}/.well-known/oauth-authorization-server 200`,
      `POST ${as.issuer}/reg 201`,
      `POST ${as.issuer}/token 200`,
      `POST ${resource} 200`,
    ]);
    // The rest went to the server, with the token: no further OAuth request, no refusal.
    expect(log.since(6, resource).filter((entry) => !entry.startsWith(`POST ${resource} 20`))).toEqual([]);
    expect(registered()).toEqual({ clientId: expect.any(String), authMethod: 'none', redirectUri: REDIRECT_URI });
    expect(registered().clientId).not.toBe(as.publicClient.clientId);

    expect(urls).toHaveLength(1);
    expect(urls[0].origin + urls[0].pathname).toBe(`${as.issuer}/auth`);
    expect(Object.fromEntries(urls[0].searchParams)).toEqual({
      response_type: 'code',
      client_id: registered().clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
      state: expect.any(String),
      resource,
      // The resource's scopes_supported, and offline_access since the authorization server lists it (this one
      // issues refresh tokens to every client allowed the grant, asked for or not).
      scope: 'notes:read offline_access',
    });

    expect(store.saved).toHaveLength(1);
    expect(store.latest).toMatchObject({ tokenType: 'Bearer', refreshToken: expect.any(String) });
    const claims = decodeJwt(store.latest.accessToken);
    expect(claims).toMatchObject({
      iss: as.issuer,
      aud: resource,
      sub: 'demo',
      client_id: registered().clientId,
      scope: 'notes:read',
    });
    expect(textOf(await client.client.callTool('list_notes'))).toBe('[]');
    expect(JSON.parse(textOf(await client.client.callTool('whoami')))).toEqual({
      subject: 'demo',
      clientId: registered().clientId,
      scopes: ['notes:read'],
      claims,
    });
    expect(urls).toHaveLength(1);
  });

  it('steps up after 403 insufficient_scope: re-authorizes for the union of the scopes and the call then passes', async () => {
    const { as, resource, client, urls, store, log } = await start();
    await client.client.connect();
    expect(scopesOf(store.latest.accessToken)).toEqual(['notes:read']);
    const before = log.entries.length;

    const added = await client.client.callTool('add_note', { text: `from the ${era} era` });
    expect(textOf(added)).toBe(`added: from the ${era} era`);

    expect(log.since(before, resource)).toEqual([
      ...modernListing(),
      `POST ${resource} 403`,
      `POST ${as.issuer}/token 200`,
      `POST ${resource} 200`,
    ]);
    expect(urls).toHaveLength(2);
    expect(urls[1].searchParams.get('scope')).toBe('notes:read notes:write offline_access');
    expect(urls[1].searchParams.get('client_id')).toBe(urls[0].searchParams.get('client_id'));
    expect(urls[1].searchParams.get('resource')).toBe(resource);

    expect(scopesOf(store.latest.accessToken)).toEqual(['notes:read', 'notes:write']);
    expect(JSON.parse(textOf(await client.client.callTool('list_notes')))).toEqual([`from the ${era} era`]);
    expect(names(await client.client.listTools())).toEqual(['add_note', 'list_notes', 'whoami']);
    expect(urls).toHaveLength(2);
  });

  it('gives up on a scope the authorization server never grants, and says so without a token', async () => {
    const { as, resource, client, urls, store, log } = await start();
    await client.client.connect();
    expect(names(await client.client.listTools())).toEqual(['list_notes', 'whoami']);
    const before = log.entries.length;

    // oidc-provider drops the scope it does not know and grants the rest: its answer says so, and the client fails
    // the call at once (asking the person again would give the same), with the new token kept.
    const refusal = await errorOf<McpClientError>(client.client.callTool('purge'));
    expect(refusal).toBeInstanceOf(McpClientError);
    expect(refusal).toMatchObject({ kind: 'authorization', cause: expect.any(McpAuthorizationError) });
    expect(refusal.message).toMatch(/did not grant the scopes .* asks for: \[notes:purge\]/);
    expect(log.since(before, resource)).toEqual([
      ...modernListing(),
      `POST ${resource} 403`,
      `POST ${as.issuer}/token 200`,
    ]);
    expect(urls).toHaveLength(2);
    expect(urls[1].searchParams.get('scope')).toBe('notes:read notes:purge offline_access');
    expect(scopesOf(store.latest.accessToken)).toEqual(['notes:read']);

    // Once more: a second authorization, the same answer; then maxAuthorizationAttempts (2) for these scopes is
    // spent, and the next refusal is final at once, without asking anyone.
    await errorOf<McpClientError>(client.client.callTool('purge'));
    expect(urls).toHaveLength(3);
    const final = await errorOf<McpClientError>(client.client.callTool('purge'));
    expect(urls).toHaveLength(3);
    expect(final).toMatchObject({ kind: 'authorization', cause: expect.any(McpAuthorizationError) });
    expect(final.message).toMatch(
      /still refuses after 2 authorizations with the scopes \[notes:read notes:purge offline_access\]/,
    );
    for (const error of [refusal, final]) {
      const cause = error.cause as Error | undefined;
      const told = `${error.stack} ${JSON.stringify(error.data ?? null)} ${cause?.stack}`;
      for (const tokens of store.saved) {
        expect(told).not.toContain(tokens.accessToken);
        expect(told).not.toContain(tokens.refreshToken);
      }
    }
    // What was granted still works.
    expect(textOf(await client.client.callTool('list_notes'))).toBe('[]');
  });

  it('refreshes a token about to expire with the refresh token instead of a new login', async () => {
    // Tokens of 6 s: a token that short is refreshed at half its lifetime (the margin is otherwise 30 s).
    const { as, resource, prm, client, urls, store, log, registered } = await start({ accessTokenTtlSeconds: 6 });
    await client.client.connect();
    // Listed first, so the modern era's calls below need no listing of their own.
    expect(names(await client.client.listTools())).toEqual(['list_notes', 'whoami']);
    expect(urls).toHaveLength(1);
    const first = store.saved[0];
    expect(first.refreshToken).toEqual(expect.any(String));
    // Fresh: no refresh yet.
    let before = log.entries.length;
    expect(textOf(await client.client.callTool('list_notes'))).toBe('[]');
    expect(log.since(before, resource)).toEqual([`POST ${resource} 200`]);
    await sleep(3_100);
    before = log.entries.length;
    const saved = store.saved.length;

    expect(textOf(await client.client.callTool('list_notes'))).toBe('[]');
    expect(log.since(before, resource)).toEqual([`POST ${as.issuer}/token 200`, `POST ${resource} 200`]);
    expect(urls).toHaveLength(1);
    expect(store.saved).toHaveLength(saved + 1);
    const refreshed = store.latest;
    expect(refreshed.accessToken).not.toBe(first.accessToken);
    // Public clients get their refresh token rotated: the client keeps the new one.
    expect(refreshed.refreshToken).toEqual(expect.any(String));
    expect(refreshed.refreshToken).not.toBe(store.saved[saved - 1].refreshToken);
    expect(decodeJwt(refreshed.accessToken)).toMatchObject({
      aud: resource,
      sub: 'demo',
      client_id: registered().clientId,
      scope: 'notes:read',
    });

    // A rotated refresh token used again is a replay: oidc-provider revokes the whole grant. The client's next
    // refresh then fails, it sends no token, and the server's 401 sends the person through a login again.
    await expect(
      as.refresh(store.saved[saved - 1].refreshToken!, { clientId: registered().clientId }),
    ).rejects.toMatchObject({ status: 400, error: 'invalid_grant' });
    await sleep(3_100);
    const replayed = log.entries.length;
    expect(textOf(await client.client.callTool('list_notes'))).toBe('[]');
    expect(log.since(replayed, resource)).toEqual([
      `POST ${as.issuer}/token 400`,
      `POST ${resource} 401`,
      `GET ${prm} 200`,
      // The same authorization server as before: its metadata and the registration are reused.
      `POST ${as.issuer}/token 200`,
      `POST ${resource} 200`,
    ]);
    expect(urls).toHaveLength(2);
    expect(urls[1].searchParams.get('client_id')).toBe(registered().clientId);
    expect(urls[1].searchParams.get('scope')).toBe('notes:read offline_access');
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

import { INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@conduit-mcp/core';
import {
  McpAuthResult,
  McpAuthenticator,
  McpCtx,
  McpHttpOptions,
  McpModule,
  McpRequestContext,
  McpTool,
  TransportFacts,
} from '@conduit-mcp/server';

const APP_ORIGIN = 'https://inspector.example.com';
const RESOURCE_METADATA = 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp';
const SCOPE_CHALLENGE = 'Bearer error="insufficient_scope", scope="notes:write"';
const JSON_AND_SSE = 'application/json, text/event-stream';
const MODERN = '2026-07-28';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-fetch', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** The tokens of the test: `alice` may read, `bob` may read and write. */
class BearerAuthenticator implements McpAuthenticator {
  readonly calls: TransportFacts[] = [];

  authenticate(facts: TransportFacts): McpAuthResult {
    this.calls.push(facts);
    const header = facts.headers.authorization;
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
    const scopes = token === 'alice' ? ['notes:read'] : token === 'bob' ? ['notes:read', 'notes:write'] : undefined;
    if (!scopes) return { ok: false, status: 401, challenge: `Bearer resource_metadata="${RESOURCE_METADATA}"` };
    return { ok: true, auth: { subject: token, clientId: 'e2e', scopes, claims: { sub: token }, token } };
  }
}

@Injectable()
class NoteTools {
  readonly handled: string[] = [];

  @McpTool({ name: 'whoami', description: 'Who the server thinks the caller is' })
  whoami(@McpCtx() ctx: McpRequestContext) {
    this.handled.push('whoami');
    return { subject: ctx.auth?.subject ?? null, scopes: ctx.auth?.scopes ?? [], kind: ctx.transport.kind };
  }

  @McpTool({ name: 'write_note', description: 'Needs notes:write' })
  writeNote(@McpCtx() ctx: McpRequestContext) {
    this.handled.push('write_note');
    if (!ctx.auth?.scopes.includes('notes:write')) {
      throw new McpError(ErrorCode.ServerError, 'Insufficient scope', undefined, {
        http: { status: 403, headers: { 'WWW-Authenticate': SCOPE_CHALLENGE } },
      });
    }
    return 'written';
  }

  @McpTool({ name: 'plain_failure', description: 'An McpError without an HTTP hint' })
  plainFailure() {
    throw new McpError(ErrorCode.ServerError, 'Nope');
  }
}

interface Running {
  app: INestApplication;
  url: string;
  tools: NoteTools;
  close(): Promise<void>;
}

async function start(http: McpHttpOptions): Promise<Running> {
  @Module({ imports: [McpModule.forRoot({ name: 'auth-e2e', version: '1', http })], providers: [NoteTools] })
  class AuthTestModule {}
  const app = await NestFactory.create(AuthTestModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url: `${base}/mcp`, tools: app.get(NoteTools), close: () => app.close() };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers },
    body: JSON.stringify(body),
  });
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'auth-e2e', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

function structured(result: Awaited<ReturnType<Client['callTool']>>): unknown {
  const [first] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(first.text);
}

describe('HTTP authentication, McpError HTTP hints and CORS, through McpModule', () => {
  let server: Running;
  let authenticator: BearerAuthenticator;

  beforeAll(async () => {
    authenticator = new BearerAuthenticator();
    server = await start({ authenticator, cors: { origins: [APP_ORIGIN] } });
  });

  afterAll(() => server.close());

  describe('the authenticator', () => {
    it('challenges a caller without a token with 401 before anything is dispatched', async () => {
      const before = server.tools.handled.length;
      const response = await post(server.url, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { _meta: MODERN_META, name: 'whoami', arguments: {} },
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${RESOURCE_METADATA}"`);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Unauthorized' } });
      expect(server.tools.handled.length).toBe(before);
    });

    it('shows handlers who the caller is as ctx.auth (legacy session, official SDK client)', async () => {
      const client = await connect(server.url, 'alice');
      try {
        const result = await client.callTool({ name: 'whoami', arguments: {} });
        expect(structured(result)).toEqual({ subject: 'alice', scopes: ['notes:read'], kind: 'streamable-http' });
      } finally {
        await client.close();
      }
    });

    it('shows ctx.auth in the modern era too', async () => {
      const response = await post(
        server.url,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { _meta: MODERN_META, name: 'whoami', arguments: {} } },
        {
          authorization: 'Bearer bob',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'whoami',
        },
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as { result: { content: Array<{ text: string }> } };
      expect(JSON.parse(body.result.content[0].text)).toMatchObject({ subject: 'bob' });
    });

    it('guards the HTTP+SSE endpoints', async () => {
      const base = server.url.replace(/\/mcp$/, '');
      const refused = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
      await refused.text();
      const message = await post(`${base}/message?sessionId=whatever`, { jsonrpc: '2.0', id: 1, method: 'ping' });
      expect(message.status).toBe(401);
      await message.text();
    });
  });

  describe("an McpError's HTTP hint", () => {
    it('answers 403 with its challenge (legacy era), and passes with the scope', async () => {
      const init = await post(server.url, INITIALIZE, { authorization: 'Bearer alice' });
      const sessionId = init.headers.get('mcp-session-id')!;
      await init.text();
      const headers = { authorization: 'Bearer alice', 'mcp-session-id': sessionId };
      const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'write_note', arguments: {} } };
      const refused = await post(server.url, call, headers);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toBe(SCOPE_CHALLENGE);
      expect(await refused.json()).toEqual({
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32000, message: 'Insufficient scope' },
      });

      const bob = await connect(server.url, 'bob');
      try {
        const result = await bob.callTool({ name: 'write_note', arguments: {} });
        expect(result.content).toEqual([{ type: 'text', text: 'written' }]);
      } finally {
        await bob.close();
      }
    });

    it('answers 403 with its challenge in the modern era', async () => {
      const response = await post(
        server.url,
        {
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { _meta: MODERN_META, name: 'write_note', arguments: {} },
        },
        {
          authorization: 'Bearer alice',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'write_note',
        },
      );
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe(SCOPE_CHALLENGE);
      expect(await response.json()).toMatchObject({ id: 4, error: { code: -32000, message: 'Insufficient scope' } });
    });

    it('leaves the status of an McpError without a hint as it was (200)', async () => {
      const response = await post(
        server.url,
        {
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { _meta: MODERN_META, name: 'plain_failure', arguments: {} },
        },
        {
          authorization: 'Bearer alice',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'plain_failure',
        },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(await response.json()).toMatchObject({ id: 5, error: { code: -32000, message: 'Nope' } });
    });
  });

  describe('CORS', () => {
    it('answers the preflight of an allowed origin, without asking the authenticator', async () => {
      const calls = authenticator.calls.length;
      const response = await fetch(server.url, {
        method: 'OPTIONS',
        headers: {
          origin: APP_ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
      expect(response.headers.get('access-control-allow-headers')).toBe(
        'authorization, content-type, mcp-protocol-version',
      );
      expect(response.headers.get('vary')).toContain('Origin');
      expect(authenticator.calls.length).toBe(calls);
    });

    it('refuses the preflight of another origin with 403', async () => {
      const response = await fetch(server.url, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' },
      });
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      await response.text();
    });

    it('serves a browser-like client from the allowed origin end to end, its 401 readable', async () => {
      const refused = await post(server.url, INITIALIZE, { origin: APP_ORIGIN });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(refused.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
      await refused.text();

      const headers = { origin: APP_ORIGIN, authorization: 'Bearer alice' };
      const init = await post(server.url, INITIALIZE, headers);
      expect(init.status).toBe(200);
      expect(init.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(init.headers.get('access-control-expose-headers')).toBe(
        'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate',
      );
      expect(init.headers.get('vary')).toBe('Origin');
      const sessionId = init.headers.get('mcp-session-id')!;
      await init.text();
      const call = await post(
        server.url,
        { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
        { ...headers, 'mcp-session-id': sessionId },
      );
      expect(call.status).toBe(200);
      expect(call.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      const body = (await call.json()) as { result: { content: Array<{ text: string }> } };
      expect(JSON.parse(body.result.content[0].text)).toMatchObject({ subject: 'alice' });
    });
  });

  it('without the options, answers OPTIONS 405 and lets everyone in, as before', async () => {
    const plain = await start({});
    try {
      const preflight = await fetch(plain.url, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(405);
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      await preflight.text();
      const foreign = await post(plain.url, INITIALIZE, { origin: APP_ORIGIN });
      expect(foreign.status).toBe(403);
      await foreign.text();
      const init = await post(plain.url, INITIALIZE);
      expect(init.status).toBe(200);
      expect(init.headers.get('access-control-allow-origin')).toBeNull();
      await init.text();
    } finally {
      await plain.close();
    }
  });
});

// The security checklist's authorization rows, end to end with a real authorization server: no access token ever
// reaches a log line, a telemetry event or a response body — valid, refused for its scopes, tampered, expired, of an
// unknown key while the authorization server is down — and no token is passed to handlers unless exposeToken.
import { INestApplication, Injectable, LoggerService, Module } from '@nestjs/common';
import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import { SignJWT, generateKeyPair } from 'jose';
import { MCP_CHANNELS, McpCtx, McpModule, McpRequestContext, McpScopes, McpTool } from '@conduit-mcp/server';
import { createHttpApp, freePort } from './support/http-adapters';
import { AuthServerFixture, startAuthServer } from './support/oidc-as.fixture';

@Injectable()
class NoteTools {
  static seen: Array<string | undefined> = [];

  @McpTool({ name: 'whoami' })
  whoami(@McpCtx() ctx: McpRequestContext) {
    NoteTools.seen.push(ctx.auth?.token);
    return ctx.auth?.subject ?? 'nobody';
  }

  @McpTool({ name: 'add_note' })
  @McpScopes('notes:write')
  add() {
    return 'added';
  }
}

/** Every line the app logs, at every level, with its arguments. */
class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  private keep(level: string, message: unknown, rest: unknown[]) {
    this.lines.push(`${level} ${text(message)} ${rest.map((value) => text(value)).join(' ')}`);
  }
  log(message: unknown, ...rest: unknown[]) {
    this.keep('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.keep('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.keep('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.keep('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.keep('verbose', message, rest);
  }
}

// Every string reachable from a value (an event, an error with its cause and stack), bounded in depth.
function text(value: unknown, depth = 0, seen = new Set<unknown>()): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null || depth > 6 || seen.has(value)) return String(value);
  seen.add(value);
  const parts: string[] = [];
  if (value instanceof Error) parts.push(value.message, value.stack ?? '', text(value.cause, depth + 1, seen));
  for (const key of Object.getOwnPropertyNames(value)) {
    let field: unknown;
    try {
      field = (value as Record<string, unknown>)[key];
    } catch {
      continue;
    }
    if (typeof field !== 'function') parts.push(key, text(field, depth + 1, seen));
  }
  return parts.join(' ');
}

describe('no access token in logs, telemetry or answers', () => {
  let as: AuthServerFixture;
  let app: INestApplication;
  let url: string;
  let module: unknown;
  const logger = new CapturingLogger();
  const events: string[] = [];
  const onEvent = (event: unknown) => events.push(text(event));
  const plain = Object.values(MCP_CHANNELS);
  const traced = [MCP_CHANNELS.tool, MCP_CHANNELS.resource, MCP_CHANNELS.prompt];
  const tracer = { start: onEvent, end: onEvent, asyncStart: onEvent, asyncEnd: onEvent, error: onEvent };

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    as = await startAuthServer({ resource: url });
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'notes',
          version: '1.0.0',
          auth: { resource: url, authorizationServers: [as.issuer], token: { type: 'jwt' } },
        }),
      ],
      providers: [NoteTools],
    })
    class SecretsModule {}
    module = SecretsModule;
    app = await createHttpApp(SecretsModule, 'express', { logger, abortOnError: false });
    await app.listen(port, '127.0.0.1');
    for (const name of plain) subscribe(name, onEvent);
    for (const name of traced) tracingChannel(name).subscribe(tracer);
  });

  afterAll(async () => {
    for (const name of plain) unsubscribe(name, onEvent);
    for (const name of traced) tracingChannel(name).unsubscribe(tracer);
    await app?.close();
    await as?.stop();
  });

  async function call(token: string, name: string, endpoint = url) {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name,
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    return { status: response.status, text: `${[...response.headers].join(' ')} ${await response.text()}` };
  }

  it('never writes a token, valid or not, where it could be read again', async () => {
    const reader = (await as.clientCredentials('notes:read')).access_token;
    const [header, payload, signature] = reader.split('.');
    const tampered = `${header}.${payload}.${signature.slice(0, -4)}AAAA`;
    const expired = await new SignJWT({ scope: 'notes:read', client_id: as.serviceClient.clientId })
      .setProtectedHeader({ alg: as.alg, kid: as.kid, typ: 'at+jwt' })
      .setIssuer(as.issuer)
      .setSubject('someone')
      .setAudience(url)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
      .sign(as.signingKey);
    const stranger = await new SignJWT({ scope: 'notes:read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'not-a-key-of-the-server', typ: 'at+jwt' })
      .setIssuer(as.issuer)
      .setSubject('someone')
      .setAudience(url)
      .setExpirationTime('5m')
      .sign((await generateKeyPair('ES256')).privateKey);

    const answers = [
      await call(reader, 'whoami'),
      await call(reader, 'add_note'),
      await call(tampered, 'whoami'),
      await call(expired, 'whoami'),
      await call(stranger, 'whoami'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 403, 401, 401, 401]);
    // The authorization server gone, a server that has not fetched its keys yet fails to: a 500, logged.
    await as.stop();
    const fresh = await createHttpApp(module, 'express', { logger, abortOnError: false });
    await fresh.listen(0, '127.0.0.1');
    const down = await call(reader, 'whoami', `http://127.0.0.1:${fresh.getHttpServer().address().port}/mcp`);
    await fresh.close();
    expect(down.status).toBe(500);
    expect(logger.lines.some((line) => line.startsWith('error'))).toBe(true);

    const written = [...logger.lines, ...events, ...answers.map((answer) => answer.text), down.text].join('\n');
    expect(events.length).toBeGreaterThan(0);
    for (const token of [reader, tampered, expired, stranger]) {
      expect(written).not.toContain(token);
      // Nor its signature alone (what a partial log of it would show).
      expect(written).not.toContain(token.split('.')[2]);
    }
    // The handler saw who called, not the credential (no exposeToken: nothing to pass on upstream).
    expect(NoteTools.seen).toEqual([undefined]);
  });
});

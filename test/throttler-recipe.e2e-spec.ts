// The README's rate-limit recipe (docs/design/auth.md §9): @nestjs/throttler on MCP tools, per principal and per
// tool, over Express and Fastify, in both eras, through raw HTTP so that statuses and headers show. McpThrottlerGuard
// below is the recipe as the README shows it, on a class and app-wide; stock ThrottlerGuards (app-wide as Nest's docs
// register it, or told only who the caller is) show what the server makes of a guard written without MCP in mind.
import {
  ExecutionContext,
  HttpException,
  HttpStatus,
  INestApplication,
  Injectable,
  LoggerService,
  Module,
  UseGuards,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Throttle, ThrottlerGuard, ThrottlerLimitDetail, ThrottlerModule } from '@nestjs/throttler';
import {
  McpAuthInfo,
  McpContextType,
  McpExecutionContext,
  McpModule,
  McpRequestContext,
  McpTool,
} from '@conduit-mcp/server';
import { HTTP_ADAPTERS, HttpAdapterName, createHttpApp } from './support/http-adapters';

const MODERN = '2026-07-28';
const ERAS = ['legacy', 'modern'] as const;
type Era = (typeof ERAS)[number];

const PRINCIPALS: Record<string, McpAuthInfo> = {
  'alice-token': { subject: 'alice', scopes: [], claims: { sub: 'alice' } },
  'bob-token': { subject: 'bob', scopes: [], claims: { sub: 'bob' } },
};
const verifier = { type: 'custom' as const, verify: (token: string) => PRINCIPALS[token] };

/**
 * The recipe, as the README shows it (without `export`): one budget per principal and per tool; lists are not calls;
 * a 429 that says how long to wait.
 */
@Injectable()
class McpThrottlerGuard extends ThrottlerGuard {
  // A list request runs the guards of every entry to decide what the caller sees: counted, lists would be
  // throttled like calls, and a caller who lists often would see the throttled entries vanish from its lists.
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return (
      context.getType<McpContextType>() === 'mcp' &&
      McpExecutionContext.create(context).getContext().method.endsWith('/list')
    );
  }

  // An MCP handler has no HTTP request and response: the tracker reads the request context, and the
  // X-RateLimit-* headers, which have nowhere to go, are not set. HTTP routes keep the stock behaviour.
  protected override getRequestResponse(context: ExecutionContext) {
    if (context.getType<McpContextType>() !== 'mcp') return super.getRequestResponse(context);
    const ctx = McpExecutionContext.create(context).getContext();
    return { req: { headers: ctx.transport.headers, mcp: ctx }, res: {} };
  }

  // One budget per principal: the token's subject, else its client, else the caller's address.
  protected override async getTracker(req: Record<string, any>): Promise<string> {
    const ctx = req.mcp as McpRequestContext | undefined;
    if (!ctx) return super.getTracker(req);
    if (ctx.auth?.subject !== undefined) return `subject:${ctx.auth.subject}`;
    if (ctx.auth?.clientId !== undefined) return `client:${ctx.auth.clientId}`;
    return `address:${ctx.httpRequest?.socket.remoteAddress ?? ctx.transport.kind}`;
  }

  // An HttpException (Nest does not log those) whose `retryAfter` becomes the 429's Retry-After header.
  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new HttpException(
      { message: 'Too many requests', retryAfter: detail.timeToBlockExpire },
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}

@Injectable()
@UseGuards(McpThrottlerGuard)
class RecipeTools {
  @McpTool({ name: 'ping_a', description: 'Two calls a minute per caller' })
  @Throttle({ default: { limit: 2, ttl: 60_000 } })
  pingA() {
    return 'pong a';
  }

  @McpTool({ name: 'ping_b', description: 'Two calls a minute per caller' })
  @Throttle({ default: { limit: 2, ttl: 60_000 } })
  pingB() {
    return 'pong b';
  }
}

/** A guard written without MCP in mind: the stock guard, told only who the caller is. */
@Injectable()
class PrincipalThrottlerGuard extends ThrottlerGuard {
  // The stock guard hands the execution context to its tracker beside the "request" (here: the tool's arguments).
  protected override async getTracker(_req: Record<string, any>, context?: ExecutionContext): Promise<string> {
    return `subject:${McpExecutionContext.create(context!).getContext().auth?.subject}`;
  }
}

@Injectable()
class StockTools {
  @McpTool({ name: 'ping_c', description: 'One call a minute per caller' })
  @UseGuards(PrincipalThrottlerGuard)
  @Throttle({ default: { limit: 1, ttl: 60_000 } })
  pingC() {
    return 'pong c';
  }

  @McpTool({ name: 'crash', description: 'Fails the way Nest logs' })
  crash(): string {
    throw new Error('a bug in a tool');
  }
}

/** Tools with no guard of their own: an app-wide guard is all they get. */
@Injectable()
class UnguardedTools {
  @McpTool({ name: 'ping_d', description: 'Limited by the module default only' })
  pingD() {
    return 'pong d';
  }
}

type Provided = new (...args: never[]) => unknown;

// The module default (5 a minute) applies where no @Throttle says otherwise.
function throttledModule(tools: Provided[], appGuard?: Provided) {
  @Module({
    imports: [
      ThrottlerModule.forRoot([{ ttl: 60_000, limit: 5 }]),
      McpModule.forRoot({
        name: 'throttled',
        version: '1.0.0',
        auth: {
          resource: 'http://127.0.0.1/mcp',
          authorizationServers: ['https://idp.example.com'],
          token: verifier,
        },
      }),
    ],
    providers: appGuard ? [...tools, { provide: APP_GUARD, useClass: appGuard }] : tools,
  })
  class ThrottledModule {}
  return ThrottledModule;
}

/** Everything the app logged, by level. */
class CapturedLogs implements LoggerService {
  readonly entries: Array<{ level: string; message: unknown }> = [];
  log = (message: unknown) => void this.entries.push({ level: 'log', message });
  error = (message: unknown) => void this.entries.push({ level: 'error', message });
  warn = (message: unknown) => void this.entries.push({ level: 'warn', message });
  debug = (message: unknown) => void this.entries.push({ level: 'debug', message });
  verbose = (message: unknown) => void this.entries.push({ level: 'verbose', message });
  fatal = (message: unknown) => void this.entries.push({ level: 'fatal', message });

  errors(): unknown[] {
    return this.entries.filter((entry) => entry.level === 'error' || entry.level === 'fatal').map((e) => e.message);
  }
}

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

/** A caller with a token, speaking one era over raw HTTP: a legacy session, or stateless modern POSTs. */
class Caller {
  private sessionId: string | undefined;
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly era: Era,
    private readonly token: string,
  ) {}

  async call(name: string): Promise<Answer> {
    return this.send('tools/call', { name, arguments: {} }, name);
  }

  async listed(): Promise<string[]> {
    const { status, body } = await this.send('tools/list', {});
    expect(status).toBe(200);
    return ((body.result?.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name).sort();
  }

  private async send(method: string, params: Record<string, unknown>, name?: string): Promise<Answer> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${this.token}`,
    };
    if (this.era === 'modern') {
      Object.assign(
        headers,
        { 'mcp-protocol-version': MODERN, 'mcp-method': method },
        name ? { 'mcp-name': name } : {},
      );
      params = {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'throttler-e2e', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      };
    } else {
      headers['mcp-session-id'] = this.sessionId ??= await this.initialize(headers);
    }
    const response = await fetch(this.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as Answer['body'];
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
  }

  private async initialize(headers: Record<string, string>): Promise<string> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'throttler-e2e', version: '1' },
        },
      }),
    });
    expect(response.status).toBe(200);
    await response.text();
    return response.headers.get('mcp-session-id')!;
  }
}

const text = (answer: Answer) => (answer.body.result?.content as Array<{ text: string }> | undefined)?.[0]?.text;

describe.each(HTTP_ADAPTERS)('@nestjs/throttler on MCP tools (%s)', (adapter: HttpAdapterName) => {
  describe.each(ERAS)('%s era', (era) => {
    let app: INestApplication;
    let url: string;
    let logs: CapturedLogs;
    const caller = (token: string) => new Caller(url, era, token);

    // A fresh app per test: each starts with unspent budgets.
    async function start(tools: Provided[], appGuard?: Provided): Promise<void> {
      logs = new CapturedLogs();
      app = await createHttpApp(throttledModule(tools, appGuard), adapter, { logger: logs });
      await app.listen(0, '127.0.0.1');
      url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
    }

    afterEach(() => app?.close());

    describe('the recipe (McpThrottlerGuard)', () => {
      beforeEach(() => start([RecipeTools]));

      it('refuses a principal over its limit on a tool with 429, Retry-After and a JSON-RPC error, and nobody else', async () => {
        const alice = caller('alice-token');
        for (let n = 0; n < 2; n++) {
          const passed = await alice.call('ping_a');
          expect(passed.status).toBe(200);
          expect(text(passed)).toBe('pong a');
          expect(passed.retryAfter).toBeNull();
        }

        const refused = await alice.call('ping_a');
        expect(refused.status).toBe(429);
        const wait = Number(refused.retryAfter);
        expect(Number.isInteger(wait) && wait > 0 && wait <= 60).toBe(true);
        expect(refused.body.error).toEqual({
          code: -32000,
          message: 'Too many requests',
          data: { status: 429, retryAfter: wait },
        });
        expect(refused.body.result).toBeUndefined();

        // The budget is alice's, and ping_a's: bob still calls ping_a, alice still calls ping_b.
        const bob = await caller('bob-token').call('ping_a');
        expect([bob.status, text(bob)]).toEqual([200, 'pong a']);
        const other = await alice.call('ping_b');
        expect([other.status, text(other)]).toEqual([200, 'pong b']);

        // An expected refusal, not a failure of the server: nothing logged as an error.
        expect(logs.errors()).toEqual([]);
      });

      it('neither counts list requests nor hides a throttled tool from its lists', async () => {
        const alice = caller('alice-token');
        for (let n = 0; n < 4; n++) expect(await alice.listed()).toEqual(['ping_a', 'ping_b']);

        expect((await alice.call('ping_a')).status).toBe(200);
        expect((await alice.call('ping_a')).status).toBe(200);
        expect((await alice.call('ping_a')).status).toBe(429);

        expect(await alice.listed()).toEqual(['ping_a', 'ping_b']);
        expect(await caller('bob-token').listed()).toEqual(['ping_a', 'ping_b']);
      });
    });

    describe('app-wide (APP_GUARD)', () => {
      it('the recipe limits every tool by the module default, per principal, and leaves lists alone', async () => {
        await start([UnguardedTools], McpThrottlerGuard);
        const alice = caller('alice-token');
        expect(await alice.listed()).toEqual(['ping_d']);
        for (let n = 0; n < 5; n++) expect(text(await alice.call('ping_d'))).toBe('pong d');
        const refused = await alice.call('ping_d');
        expect(refused.status).toBe(429);
        expect(refused.retryAfter).not.toBeNull();
        expect(text(await caller('bob-token').call('ping_d'))).toBe('pong d');
        expect(await alice.listed()).toEqual(['ping_d']);
        expect(logs.errors()).toEqual([]);
      });

      it('the stock ThrottlerGuard, which looks for an HTTP request, hides every tool from lists and gives all callers one budget', async () => {
        await start([UnguardedTools], ThrottlerGuard);
        const alice = caller('alice-token');
        expect(await alice.listed()).toEqual([]);
        for (let n = 0; n < 5; n++) expect(text(await alice.call('ping_d'))).toBe('pong d');
        expect((await alice.call('ping_d')).status).toBe(429);
        expect((await caller('bob-token').call('ping_d')).status).toBe(429);
      });
    });

    describe('a stock ThrottlerGuard that only tracks principals', () => {
      beforeEach(() => start([StockTools]));

      it('is answered 429 too: its ThrottlerException maps to the status, without a Retry-After it does not carry', async () => {
        const alice = caller('alice-token');
        expect(text(await alice.call('ping_c'))).toBe('pong c');

        const refused = await alice.call('ping_c');
        expect(refused.status).toBe(429);
        expect(refused.retryAfter).toBeNull();
        expect(refused.body.error).toEqual({
          code: -32000,
          message: 'ThrottlerException: Too Many Requests',
          data: { status: 429 },
        });

        const bob = await caller('bob-token').call('ping_c');
        expect([bob.status, text(bob)]).toEqual([200, 'pong c']);
        expect(logs.errors()).toEqual([]);

        // The capture does see what Nest's exception handler logs: a tool that fails is logged, refusals were not.
        expect((await alice.call('crash')).body.error).toEqual({ code: -32603, message: 'Internal error' });
        expect(logs.errors()).toEqual([expect.objectContaining({ message: 'a bug in a tool' })]);
      });

      it('counts list requests without shouldSkip: a caller over the limit no longer sees the tool listed', async () => {
        const alice = caller('alice-token');
        expect(await alice.listed()).toEqual(['crash', 'ping_c']);
        expect(await alice.listed()).toEqual(['crash']);
        expect(await caller('bob-token').listed()).toEqual(['crash', 'ping_c']);
      });
    });
  });
});

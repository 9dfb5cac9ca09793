import { Injectable, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpModule, McpTool } from '@conduit-mcp/server';
import type { NextFunction, Request, Response } from 'express';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';

@Injectable()
class Tools {
  @McpTool({ name: 'alpha_only', server: 'alpha' })
  alpha() {
    return 'alpha';
  }

  @McpTool({ name: 'everywhere' })
  everywhere() {
    return 'everywhere';
  }
}

async function listTools(url: string): Promise<string[]> {
  const client = new Client({ name: 'mount-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  await client.close();
  return tools.map((tool) => tool.name);
}

describe('mounting the HTTP transport', () => {
  it('serves two servers on two paths of one app, ahead of Express', async () => {
    @Module({
      imports: [
        McpModule.forRoot({ name: 'alpha', version: '1', http: { path: '/alpha', legacySse: false } }),
        McpModule.forRoot({ name: 'beta', version: '1', http: { path: '/beta', legacySse: false } }),
      ],
      providers: [Tools],
    })
    class TwoServers {}
    const app = await NestFactory.create(TwoServers, { logger: false });
    await app.listen(0, '127.0.0.1');
    const base = await app.getUrl();
    try {
      expect(await listTools(`${base}/alpha`)).toEqual(['alpha_only', 'everywhere']);
      expect(await listTools(`${base}/beta`)).toEqual(['everywhere']);
      expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it("as an Express route, lets the app's middleware see MCP requests", async () => {
    const seen: string[] = [];
    @Module({
      imports: [McpModule.forRoot({ name: 'express', version: '1', http: { mount: 'express' } })],
      providers: [Tools],
    })
    class ExpressMounted implements NestModule {
      configure(consumer: MiddlewareConsumer) {
        consumer
          .apply(
            (req: Request, _res: Response, next: NextFunction) => (
              seen.push(`${req.method} ${req.originalUrl}`),
              next()
            ),
          )
          .forRoutes('*path');
      }
    }
    const app = await NestFactory.create(ExpressMounted, { logger: false });
    await app.listen(0, '127.0.0.1');
    try {
      expect(await listTools(`${await app.getUrl()}/mcp`)).toEqual(['everywhere']);
      expect(seen).toEqual(expect.arrayContaining(['POST /mcp']));
    } finally {
      await app.close();
    }
  });

  it('refuses at start-up two servers that would share an HTTP path, naming both', async () => {
    @Module({
      imports: [
        McpModule.forRoot({ name: 'alpha', version: '1', http: { path: '/alpha' } }),
        McpModule.forRoot({ name: 'beta', version: '1', http: { path: '/beta' } }),
      ],
      providers: [Tools],
    })
    class SharedSse {}
    const app = await NestFactory.create(SharedSse, { logger: false, abortOnError: false });
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow(
      'MCP servers "alpha" and "beta" both serve the HTTP path /sse',
    );
    await app.close();
  });

  it('refuses a server whose Streamable HTTP path is one of its own HTTP+SSE paths', async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'self', version: '1', http: { path: '/sse' } })],
      providers: [Tools],
    })
    class SelfCollision {}
    const app = await NestFactory.create(SelfCollision, { logger: false, abortOnError: false });
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow('MCP server "self" uses the HTTP path /sse twice');
    await app.close();
  });

  it('lets two apps in one process use the same paths', async () => {
    @Module({ imports: [McpModule.forRoot({ name: 'same', version: '1' })], providers: [Tools] })
    class OneApp {}
    const first = await NestFactory.create(OneApp, { logger: false });
    const second = await NestFactory.create(OneApp, { logger: false });
    await first.listen(0, '127.0.0.1');
    await second.listen(0, '127.0.0.1');
    try {
      expect(await listTools(`${await second.getUrl()}/mcp`)).toEqual(['everywhere']);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("as Fastify routes, lets the app's Fastify hooks see MCP requests; the transport reads the body itself", async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'fastify', version: '1', http: { mount: 'fastify', bodyLimit: 1024 } })],
      providers: [Tools],
    })
    class FastifyMounted {}
    const app = await NestFactory.create<NestFastifyApplication>(FastifyMounted, new FastifyAdapter(), {
      logger: false,
    });
    const seen: string[] = [];
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRequest', (request, _reply, done) => {
        seen.push(`${request.method} ${request.url}`);
        done();
      });
    await app.listen(0, '127.0.0.1');
    const base = await app.getUrl();
    try {
      expect(await listTools(`${base}/mcp`)).toEqual(['everywhere']);
      expect(seen).toEqual(expect.arrayContaining(['POST /mcp']));
      // Over the server's own limit: its JSON-RPC error, not Fastify's.
      const tooBig = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(4096) } }),
      });
      expect(tooBig.status).toBe(413);
      expect(((await tooBig.json()) as { jsonrpc: string }).jsonrpc).toBe('2.0');
      expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('refuses at start-up a mount that does not fit the adapter', async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'misfit', version: '1', http: { mount: 'express' } })],
      providers: [Tools],
    })
    class Misfit {}
    const app = await NestFactory.create(Misfit, new FastifyAdapter(), { logger: false, abortOnError: false });
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow(
      `MCP server "misfit": http.mount 'express' needs the Express adapter, but the app runs on fastify`,
    );
    await app.close();
  });
});

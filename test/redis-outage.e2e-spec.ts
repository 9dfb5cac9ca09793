import { Injectable, INestApplication, Module } from '@nestjs/common';
import { McpHealthIndicator, McpModule, McpTool } from '@conduit-mcp/server';
import { McpRedis, McpRedisModule } from '@conduit-mcp/redis';
import { createHttpApp } from './support/http-adapters';
import { PrivateRedis } from './support/redis-server.process';

// Redis stopped and started again under a running server: a private redis-server of this test (never the shared
// one), on a free port of 127.0.0.1, without persistence.

@Injectable()
class EchoTools {
  @McpTool({ name: 'echo', description: 'Echoes' })
  echo() {
    return 'echo';
  }
}

const LEGACY_INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'outage', version: '1' } },
};

const MODERN_CALL = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: {
    name: 'echo',
    arguments: {},
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
};

describe('Redis stopped and started again under a running server', () => {
  let redis: PrivateRedis;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    @Module({
      imports: [
        McpRedisModule.forRoot({ url: redis.url, keyPrefix: 'outage:', commandTimeoutMs: 500 }),
        McpModule.forRootAsync({
          inject: [McpRedis],
          useFactory: (state: McpRedis) => ({ name: 'outage', version: '1', ...state.state('outage') }),
        }),
      ],
      providers: [EchoTools, McpHealthIndicator],
    })
    class OutageModule {}
    app = await createHttpApp(OutageModule, 'express');
    await app.listen(0, '127.0.0.1');
    url = `${await app.getUrl()}/mcp`;
  });

  afterAll(async () => {
    await app?.close();
    await redis?.close();
  });

  const send = async (body: unknown, extra: Record<string, string> = {}) => {
    const started = Date.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...extra,
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text, ms: Date.now() - started };
  };

  it('serves legacy sessions while Redis is up', async () => {
    const opened = await send(LEGACY_INIT, { 'mcp-protocol-version': '2025-11-25' });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('mcp-session-id')).toBeTruthy();
  });

  it('with Redis down: the modern era serves, legacy answers 503 with Retry-After, health is down', async () => {
    await redis.stop();

    const modern = await send(MODERN_CALL, {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    });
    expect(modern.status).toBe(200);
    expect(JSON.parse(modern.body).result.content[0].text).toBe('echo');

    const legacy = await send(LEGACY_INIT, { 'mcp-protocol-version': '2025-11-25' });
    expect(legacy.status).toBe(503);
    expect(Number(legacy.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(legacy.ms).toBeLessThan(3_000); // failed fast, never held
    expect(legacy.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|ioredis/);

    const health = await app.get(McpHealthIndicator).isHealthy('mcp');
    expect(health.mcp.status).toBe('down');
  });

  it('with Redis back: legacy sessions are served again, without a restart', async () => {
    await redis.start();
    const deadline = Date.now() + 10_000;
    let opened = await send(LEGACY_INIT, { 'mcp-protocol-version': '2025-11-25' });
    while (opened.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      opened = await send(LEGACY_INIT, { 'mcp-protocol-version': '2025-11-25' });
    }
    expect(opened.status).toBe(200);
    expect((await app.get(McpHealthIndicator).isHealthy('mcp')).mcp.status).toBe('up');
  });
});

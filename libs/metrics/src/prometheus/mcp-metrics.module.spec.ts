import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AddressInfo } from 'node:net';
import { MCP_CHANNELS, type McpRequestTrace } from '@conduit-mcp/server';
import { Registry } from 'prom-client';
import { McpMetricsModule } from './mcp-metrics.module';
import { routePath } from './mcp-metrics.module-definition';
import { McpPrometheusMetrics } from './mcp-prometheus.metrics';
import { traceOperation, valueOf } from './metrics.fixtures-spec';

const OPERATION = 'mcp_server_operation_duration_seconds';

function request(): McpRequestTrace {
  return {
    server: 'notes',
    method: 'ping',
    routed: true,
    era: 'legacy',
    transport: 'stdio',
    requestId: '1',
    status: 'ok',
    durationMs: 1,
  };
}

@Injectable()
class Settings {
  readonly prefix = 'settings_';
}

@Module({ providers: [Settings], exports: [Settings] })
class SettingsModule {}

describe('McpMetricsModule', () => {
  it('forRoot provides the metrics, started with the app and stopped with it', async () => {
    const registry = new Registry();
    const moduleRef = await Test.createTestingModule({ imports: [McpMetricsModule.forRoot({ registry })] }).compile();
    const metrics = moduleRef.get(McpPrometheusMetrics);
    expect(metrics.registry).toBe(registry);
    traceOperation(MCP_CHANNELS.request, request());
    await moduleRef.init();
    traceOperation(MCP_CHANNELS.request, request());
    await moduleRef.close();
    traceOperation(MCP_CHANNELS.request, request());
    expect(await valueOf(registry, OPERATION, {}, `${OPERATION}_count`)).toBe(1);
  });

  it('forRootAsync takes its options from a factory, with injected providers', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpMetricsModule.forRootAsync({
          imports: [SettingsModule],
          inject: [Settings],
          useFactory: (settings: Settings) => ({ prefix: settings.prefix, client: false }),
        }),
      ],
    }).compile();
    await moduleRef.init();
    try {
      const { registry } = moduleRef.get(McpPrometheusMetrics);
      expect(registry.getSingleMetric(`settings_${OPERATION}`)).toBeDefined();
      expect(registry.getSingleMetric('settings_mcp_client_operation_duration_seconds')).toBeUndefined();
    } finally {
      await moduleRef.close();
    }
  });

  it('refuses malformed options when the app starts', async () => {
    await expect(
      Test.createTestingModule({ imports: [McpMetricsModule.forRoot({ prefix: 'bad prefix' })] }).compile(),
    ).rejects.toThrow('McpPrometheusMetrics: prefix must be empty or match');
  });

  it('serves no route by default', () => {
    expect(McpMetricsModule.forRoot({}).controllers).toBeUndefined();
    expect(McpMetricsModule.forRoot({ route: false }).controllers).toBeUndefined();
  });

  it('serves GET <route.path> with the exposition text and the registry content type (forRootAsync)', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpMetricsModule.forRootAsync({
          route: { path: '/internal/metrics' },
          useFactory: () => ({ prefix: 'scraped_' }),
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    try {
      traceOperation(MCP_CHANNELS.request, request());
      const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
      const scraped = await fetch(`${base}/internal/metrics`);
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get('content-type')).toBe(app.get(McpPrometheusMetrics).contentType);
      expect(await scraped.text()).toMatch(/^scraped_mcp_server_operation_duration_seconds_count\{.*\} 1$/m);
      expect((await fetch(`${base}/metrics`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('keeps route and isGlobal out of the options the metrics get, and is not global by default', () => {
    const module = McpMetricsModule.forRoot({ prefix: 'a_', route: true, isGlobal: false });
    expect(module.global).toBe(false);
    expect(McpMetricsModule.forRoot({ isGlobal: true }).global).toBe(true);
    const options = module.providers?.find((provider) => typeof provider === 'object' && 'useValue' in provider) as {
      useValue: unknown;
    };
    expect(options.useValue).toEqual({ prefix: 'a_' });
  });

  it.each([[{ path: 'metrics' }], [{ path: '/me trics' }], [{ path: '' }]])('refuses the route %j', (route) => {
    expect(() => McpMetricsModule.forRoot({ route })).toThrow('McpMetricsModule: route.path must start with /');
  });

  it('routePath answers undefined when there is no route', () => {
    expect(routePath(false)).toBeUndefined();
    expect(routePath(undefined)).toBeUndefined();
  });
});

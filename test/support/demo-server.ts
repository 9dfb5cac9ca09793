import { INestApplication, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { McpHttpOptions, McpModule } from '@conduit-mcp/server';
import { DEMO_PROVIDERS } from '../../apps/demo-server/src/demo.providers';
import { HealthController } from '../../apps/demo-server/src/health/health.controller';
import { HttpAdapterName, createHttpApp } from './http-adapters';

/** A running demo server on 127.0.0.1 and a random port. */
export interface RunningServer {
  app: INestApplication;
  url: string;
  close(): Promise<void>;
}

/** Starts the demo app's providers behind `McpModule` with the given HTTP options, on 127.0.0.1:0 (Express by default). */
export async function startDemoServer(
  http: McpHttpOptions = {},
  adapter: HttpAdapterName = 'express',
): Promise<RunningServer> {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'conduit-demo',
        version: '0.1.0',
        instructions: 'Demo',
        http: { path: '/mcp', ...http },
      }),
      TerminusModule,
    ],
    controllers: [HealthController],
    providers: DEMO_PROVIDERS,
  })
  class DemoTestModule {}

  const app = await createHttpApp(DemoTestModule, adapter);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}${http.path ?? '/mcp'}`, close: () => app.close() };
}

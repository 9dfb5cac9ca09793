import { DynamicModule, Inject, Module, ModuleMetadata, OnApplicationShutdown } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { McpModule, McpModuleOptions } from '@conduit-mcp/server';
import { DEMO_PROVIDERS, OAUTH_DEMO_PROVIDERS } from './demo.providers';
import { HealthController } from './health/health.controller';
import { metricsImports } from './metrics/demo-metrics';

/** How `npm run start:oauth` protects the demo. */
export interface DemoOAuthOptions {
  /** The MCP endpoint's URI as clients reach it (`http://127.0.0.1:3000/mcp`): the audience tokens must name. */
  resource: string;
  /** The authorization server whose tokens are accepted; it lives as long as the app and is closed with it. */
  authorizationServer: { issuer: string; close(): Promise<void> };
  /** Browser origins allowed to call the endpoint (the MCP Inspector's). */
  corsOrigins: string[];
}

const DEMO_OAUTH_OPTIONS = Symbol('DEMO_OAUTH_OPTIONS');

const SERVER = {
  name: 'conduit-demo',
  title: 'Conduit demo server',
  version: '0.1.0',
  instructions: 'Weather forecasts, a notebook, and an admin tool. Ask before deleting notes.',
} satisfies Partial<McpModuleOptions>;

function demoModule(mcp: McpModuleOptions, providers: ModuleMetadata['providers']): ModuleMetadata {
  return {
    imports: [McpModule.forRoot(mcp), TerminusModule, ...metricsImports()],
    controllers: [HealthController],
    providers,
  };
}

/** The demo: `npm start` (HTTP on 127.0.0.1; `METRICS=1`: Prometheus metrics on `/metrics`) and `npm run start:stdio`. */
@Module(demoModule({ ...SERVER, http: { path: '/mcp' } }, DEMO_PROVIDERS))
export class AppModule {}

/**
 * The demo as an OAuth 2.1 resource server (`npm run start:oauth`): every HTTP request needs a JWT access token of
 * the given authorization server, the protected resource metadata is served beside `/mcp`, and the notebook and the
 * admin tool need the scopes `notes:read`, `notes:write` and `admin`.
 */
@Module({})
export class OAuthAppModule implements OnApplicationShutdown {
  constructor(@Inject(DEMO_OAUTH_OPTIONS) private readonly oauth: DemoOAuthOptions) {}

  static forRoot(oauth: DemoOAuthOptions): DynamicModule {
    const mcp: McpModuleOptions = {
      ...SERVER,
      http: { path: '/mcp', cors: { origins: oauth.corsOrigins } },
      auth: {
        resource: oauth.resource,
        authorizationServers: [oauth.authorizationServer.issuer],
        token: { type: 'jwt' },
        resourceName: SERVER.title,
        scopesSupported: ['notes:read', 'notes:write', 'admin'],
        // The admin may do what the notebook's users may.
        impliedScopes: { admin: ['notes:read', 'notes:write'] },
      },
    };
    const metadata = demoModule(mcp, [...OAUTH_DEMO_PROVIDERS, { provide: DEMO_OAUTH_OPTIONS, useValue: oauth }]);
    return { module: OAuthAppModule, ...metadata };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.oauth.authorizationServer.close();
  }
}

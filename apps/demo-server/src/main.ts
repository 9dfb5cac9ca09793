import { INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpStdio } from '@conduit-mcp/server';
import { AppModule, OAuthAppModule } from './app.module';
import { metricsEnabled } from './metrics/demo-metrics';
import { startDevAuthorizationServer } from './oauth/dev-authorization.server';

/** The pre-registered public client of `--oauth` (clients may also register themselves). */
const DEMO_CLIENT_ID = 'conduit-demo';
/** Where the MCP Inspector's UI runs by default; its OAuth callbacks are `<origin>/oauth/callback(/debug)`. */
const INSPECTOR_ORIGINS = ['http://localhost:6274', 'http://127.0.0.1:6274'];

async function bootstrap(): Promise<void> {
  if (process.argv.includes('--stdio')) {
    await McpStdio.run(AppModule);
    return;
  }
  if (process.argv.includes('--oauth')) {
    await serveWithOAuth();
    return;
  }
  const app = await NestFactory.create(AppModule);
  await serve(app, portOf('PORT', 3000));
  const url = await app.getUrl();
  const metrics = metricsEnabled() ? ` · metrics: ${url}/metrics` : '';
  Logger.log(`MCP endpoint: ${url}/mcp · health: ${url}/health${metrics}`, 'DemoServer');
}

async function serve(app: INestApplication, port: number): Promise<void> {
  // SIGTERM/SIGINT: the MCP server drains (within shutdownGraceMs), the app closes, the process exits with 0.
  app.enableShutdownHooks([], { useProcessExit: true });
  await app.listen(port, '127.0.0.1');
}

// The demo behind OAuth, with a development authorization server beside it. Both URLs name 127.0.0.1, never
// localhost: the SDK clients compare the resource they fetched with the one the metadata names, and the issuer too.
async function serveWithOAuth(): Promise<void> {
  const port = portOf('PORT', 3000);
  if (port === 0) throw new Error('--oauth needs a fixed PORT: the access tokens name the endpoint, port included');
  const authPort = portOf('AUTH_PORT', port + 1);
  const resource = `http://127.0.0.1:${port}/mcp`;
  const authorizationServer = await startDevAuthorizationServer({
    resource,
    port: authPort,
    publicClient: {
      clientId: DEMO_CLIENT_ID,
      redirectUris: INSPECTOR_ORIGINS.flatMap((origin) => [
        `${origin}/oauth/callback`,
        `${origin}/oauth/callback/debug`,
      ]),
    },
  });
  let app: INestApplication | undefined;
  try {
    app = await NestFactory.create(
      OAuthAppModule.forRoot({ resource, authorizationServer, corsOrigins: INSPECTOR_ORIGINS }),
    );
    await serve(app, port);
  } catch (error) {
    await app?.close();
    await authorizationServer.close();
    throw error;
  }
  const base = await app.getUrl();
  Logger.log(`MCP endpoint (OAuth): ${resource} · health: ${base}/health`, 'DemoServer');
  Logger.log(`Authorization server: ${authorizationServer.issuer} (${authorizationServer.metadataUrl})`, 'DemoServer');
  Logger.log(
    `Sign in as demo / demo · pre-registered public client "${DEMO_CLIENT_ID}" (PKCE; redirect URIs of the MCP ` +
      'Inspector on port 6274), or let the client register itself · scopes: notes:read notes:write admin',
    'DemoServer',
  );
  Logger.warn(
    'Development only: in-memory authorization server, fixed user, consent approved at once, open client registration',
    'DemoServer',
  );
}

function portOf(variable: string, fallback: number): number {
  const value = process.env[variable];
  const port = value === undefined || value === '' ? fallback : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${variable} must be a port number`);
  return port;
}

void bootstrap();

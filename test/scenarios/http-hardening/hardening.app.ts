// A small MCP server app for the HTTP hardening specs (test/http-*.e2e-spec.ts), on each HTTP mount in turn.
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { McpArgs, McpAuthenticator, McpHttpOptions, McpModule, McpTool, TransportFacts } from '@conduit-mcp/server';
import { AddressInfo } from 'node:net';
import { HttpAdapterName, createHttpApp } from '../../support/http-adapters';

/** Where MCP is served: the default mount ahead of the router, an Express route, Fastify routes. */
export const HTTP_MOUNTS: ReadonlyArray<{ name: string; adapter: HttpAdapterName; mount: McpHttpOptions['mount'] }> = [
  { name: 'server mount (Express adapter)', adapter: 'express', mount: 'server' },
  { name: 'Express mount', adapter: 'express', mount: 'express' },
  { name: 'Fastify mount', adapter: 'fastify', mount: 'fastify' },
];
export type HttpMount = (typeof HTTP_MOUNTS)[number];

@Injectable()
class HardeningTools {
  @McpTool({ name: 'echo', description: 'Answers with its text.' })
  echo(@McpArgs() args: { text?: string }) {
    return String(args.text ?? '');
  }

  @McpTool({
    name: 'sleep',
    description: 'Answers after `ms` milliseconds, writing nothing meanwhile.',
    input: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
  })
  async sleep(@McpArgs() args: { ms: number }) {
    await new Promise((resolve) => setTimeout(resolve, args.ms));
    return 'slept';
  }
}

/** Takes the caller's name from `X-User` (anonymous without it). */
export const headerAuthenticator: McpAuthenticator = {
  authenticate: (facts: TransportFacts) => {
    const user = facts.headers['x-user'];
    return { ok: true, auth: typeof user === 'string' ? { subject: user, scopes: [], claims: {} } : undefined };
  },
};

/** A running hardening app on 127.0.0.1. */
export interface HardeningApp {
  app: INestApplication;
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  close(): Promise<void>;
}

/** Starts the app on `mount` with `http` options (MCP at `/mcp`, HTTP+SSE at `/sse` and `/message`). */
export async function startHardeningApp(mount: HttpMount, http: McpHttpOptions = {}): Promise<HardeningApp> {
  @Module({
    imports: [McpModule.forRoot({ name: 'hardening', version: '0.0.1', http: { mount: mount.mount, ...http } })],
    providers: [HardeningTools],
  })
  class HardeningModule {}

  const app = await createHttpApp(HardeningModule, mount.adapter);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return {
    app,
    port,
    base: `http://127.0.0.1:${port}`,
    close: async () => {
      // Sockets a spec left open (held connections, drained bodies) must not keep the close waiting.
      (app.getHttpServer() as { closeAllConnections?: () => void }).closeAllConnections?.();
      await app.close();
    },
  };
}

import type { ModuleMetadata } from '@nestjs/common';
import type * as NestTesting from '@nestjs/testing';
import type { TestingModule, TestingModuleBuilder } from '@nestjs/testing';
import { loadOptionalPackage } from '@conduit-mcp/core';
import { getMcpServerToken } from '../mcp-server.token';
import { McpServer } from '../mcp.server';
import { McpTestClient, McpTestClientOptions } from './mcp-test.client';

/**
 * Options of {@link createMcpTestingModule}.
 *
 * @example
 * const t = await createMcpTestingModule({ imports: [AppModule] }, {
 *   server: 'admin',
 *   client: { timeoutMs: 1_000 },
 *   override: (builder) => builder.overrideProvider(Clock).useValue(fixedClock),
 * });
 */
export interface McpTestingModuleOptions {
  /** Which MCP server to test when the app has several (its `name`). Default: the app's only one. */
  server?: string;
  /** Options of the test client (capabilities, `onRequest`, `timeoutMs`). */
  client?: McpTestClientOptions;
  /** Changes the module before it is compiled (`overrideProvider`, `overrideGuard`…). */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

/**
 * An initialized testing module with a client connected to its MCP server.
 *
 * @example
 * const { moduleRef, server, client, close } = await createMcpTestingModule({ imports: [AppModule] });
 * server.setToolEnabled('add', false);
 * await client.waitForNotification('notifications/tools/list_changed');
 * await close();
 */
export interface McpTestingModule {
  moduleRef: TestingModule;
  server: McpServer;
  client: McpTestClient;
  /** Closes the client, then the module (its shutdown hooks run). */
  close(): Promise<void>;
}

/**
 * Compiles a testing module (`Test.createTestingModule` of the optional `@nestjs/testing`), initializes it — without
 * HTTP, which a test of the tools does not need — and connects an {@link McpTestClient} to its MCP server.
 *
 * @example
 * const t = await createMcpTestingModule({ imports: [AppModule] });
 * const result = await t.client.callTool('add', { a: 1, b: 2 });
 * await t.close();
 */
export async function createMcpTestingModule(
  metadata: ModuleMetadata,
  options: McpTestingModuleOptions = {},
): Promise<McpTestingModule> {
  const { Test } = loadOptionalPackage(
    '@nestjs/testing',
    'createMcpTestingModule',
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    () => require('@nestjs/testing') as typeof NestTesting,
    { dev: true },
  );
  const builder = Test.createTestingModule(metadata);
  const moduleRef = await (options.override ? options.override(builder) : builder).compile();
  try {
    // The bootstrap hooks are where McpModule discovers the decorated handlers.
    await moduleRef.init();
    const server = findServer(moduleRef, options.server);
    const client = await McpTestClient.connect(server, options.client);
    const close = async () => {
      await client.close();
      await moduleRef.close();
    };
    return { moduleRef, server, client, close };
  } catch (error) {
    await moduleRef.close().catch(() => undefined);
    throw error;
  }
}

function findServer(moduleRef: TestingModule, name: string | undefined): McpServer {
  if (name !== undefined) {
    try {
      return moduleRef.get<McpServer>(getMcpServerToken(name), { strict: false });
    } catch {
      throw new Error(`createMcpTestingModule: no MCP server named "${name}" (McpModule.forRoot({ name: '${name}' }))`);
    }
  }
  let servers: McpServer[] = [];
  try {
    servers = moduleRef.get(McpServer, { strict: false, each: true });
  } catch {
    // Nest throws when there is none; said below.
  }
  if (servers.length === 1) return servers[0];
  if (servers.length === 0) throw new Error('createMcpTestingModule: the module imports no McpModule.forRoot(…)');
  const names = servers.map((server) => `"${server.name}"`).join(', ');
  throw new Error(`createMcpTestingModule: the app has several MCP servers (${names}): pass { server: name }`);
}

/**
 * `@conduit-mcp/server/testing`: test the tools, resources and prompts of your own app without HTTP, in any test
 * runner. `createMcpTestingModule` needs the optional peer `@nestjs/testing` (a dev dependency); nothing here uses
 * the globals of a test runner.
 *
 * @example
 * import { createMcpTestingModule } from '@conduit-mcp/server/testing';
 *
 * const t = await createMcpTestingModule({ imports: [AppModule] });
 * const result = await t.client.callTool('add', { a: 1, b: 2 });
 * expect(result.structuredContent).toEqual({ sum: 3 });
 * await t.close();
 */
export { createMcpTestingModule } from './mcp-testing.module';
export type { McpTestingModule, McpTestingModuleOptions } from './mcp-testing.module';
export { McpTestClient } from './mcp-test.client';
export type { McpTestClientOptions, McpTestRequestHandler } from './mcp-test.client';
export type {
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListToolsResult,
} from './mcp-test.types';

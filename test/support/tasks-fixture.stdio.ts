// Serves the tasks fixture over stdio; spawned by test/client/tasks.e2e-spec.ts through ts-node (see TASKS_STDIO).
import { McpStdio } from '@conduit-mcp/server';
import { join } from 'node:path';
import { tasksModule } from './tasks-fixture';

/** How to spawn this file as a stdio MCP server (ts-node, transpile only, with the tsconfig path aliases). */
export const TASKS_STDIO = {
  command: process.execPath,
  args: ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', __filename],
  cwd: join(__dirname, '..', '..'),
};

if (require.main === module) void McpStdio.run(tasksModule(false));

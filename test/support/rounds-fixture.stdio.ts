// Serves the rounds fixture over stdio; spawned by test/modern-stdio.e2e-spec.ts through ts-node (see ROUNDS_STDIO).
import { McpStdio } from '@conduit-mcp/server';
import { join } from 'node:path';
import { abortedCalls, roundsModule } from './rounds-fixture';

/** How to spawn this file as a stdio MCP server (ts-node, transpile only, with the tsconfig path aliases). */
export const ROUNDS_STDIO = {
  command: process.execPath,
  args: ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', __filename],
  cwd: join(__dirname, '..', '..'),
};

if (require.main === module) {
  abortedCalls.onAbort = (id) => process.stderr.write(`handler aborted: ${JSON.stringify(id)}\n`);
  void McpStdio.run(roundsModule(false));
}

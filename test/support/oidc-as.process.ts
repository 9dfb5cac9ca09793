// The development authorization server as a child process of a test (see startAuthServer in oidc-as.fixture.ts): its
// options arrive as JSON in OIDC_AS_OPTIONS, it reports `conduit-e2e listening <address> <port>` on stderr once it
// answers, and it exits when told to (SIGTERM) or when its parent goes away (stdin closes).
import { join } from 'node:path';
import {
  DevAuthorizationServerOptions,
  startDevAuthorizationServer,
} from '../../apps/demo-server/src/oauth/dev-authorization.server';

/** How to spawn this file (ts-node, transpile only, with the tsconfig path aliases), as rounds-fixture.stdio.ts is. */
export const OIDC_AS_PROCESS = {
  command: process.execPath,
  args: ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', __filename],
  cwd: join(__dirname, '..', '..'),
};

/** The environment variable the options travel in. */
export const OIDC_AS_OPTIONS = 'OIDC_AS_OPTIONS';

async function main(): Promise<void> {
  const options = JSON.parse(process.env[OIDC_AS_OPTIONS] ?? '') as DevAuthorizationServerOptions;
  const server = await startDevAuthorizationServer(options);
  let closing = false;
  const exit = () => {
    if (closing) return;
    closing = true;
    void server.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', exit);
  process.on('SIGINT', exit);
  // The parent holds the other end of stdin: when it exits, even by a crash, stdin ends and so does this process.
  process.stdin.on('end', exit).on('close', exit).on('error', exit).resume();
  process.stderr.write(`conduit-e2e listening 127.0.0.1 ${server.port}\n`);
}

if (require.main === module)
  main().catch((error: unknown) => {
    process.stderr.write(`oidc-as failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  });

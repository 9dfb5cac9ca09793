import { DemoProcess, startDemoProcess } from './demo.process';
import { freePort } from './http-adapters';

/** Every tool of the demo, sorted: what a token with every scope lists. */
export const OAUTH_DEMO_TOOLS = [
  'add_note',
  'delete_note',
  'forecast',
  'reset_notes',
  'summarize_forecast',
  'weather_report',
] as const;

/** `npm run start:oauth` as a child process: the demo behind OAuth, and its development authorization server. */
export interface OAuthDemoProcess extends DemoProcess {
  /** The demo's port, and its MCP endpoint there. */
  port: number;
  resource: string;
  /** The authorization server's port, and its issuer. */
  authPort: number;
  issuer: string;
}

/** Starts it on two free ports and resolves once it printed its banner (see `startDemoProcess`). */
export async function startOAuthDemo(readyWithinMs: number): Promise<OAuthDemoProcess> {
  const port = await freePort();
  let authPort: number;
  do authPort = await freePort();
  while (authPort === port);
  const demo = await startDemoProcess(
    ['--oauth'],
    { PORT: String(port), AUTH_PORT: String(authPort) },
    'Development only',
    readyWithinMs,
  );
  return {
    ...demo,
    port,
    resource: `http://127.0.0.1:${port}/mcp`,
    authPort,
    issuer: `http://127.0.0.1:${authPort}`,
  };
}

/**
 * The demo for the tests of the calling `describe`: started before them (`beforeAll` with `hookTimeoutMs`), stopped
 * after them. Its fields are there from the first test on.
 */
export function useOAuthDemo(readyWithinMs: number, hookTimeoutMs: number): OAuthDemoProcess {
  const demo = {} as OAuthDemoProcess;
  beforeAll(async () => {
    Object.assign(demo, await startOAuthDemo(readyWithinMs));
  }, hookTimeoutMs);
  afterAll(() => demo.stop?.());
  return demo;
}

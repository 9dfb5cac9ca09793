import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { scrubbedEnv } from './client-peer.process';
import { freePort } from './http-adapters';

const ROOT = join(__dirname, '..', '..');
const START = [join(ROOT, 'scripts', 'start-app.js'), 'demo-server', '--oauth'];

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
export interface OAuthDemoProcess {
  child: ChildProcess;
  /** The demo's port, and its MCP endpoint there. */
  port: number;
  resource: string;
  /** The authorization server's port, and its issuer. */
  authPort: number;
  issuer: string;
  /** What it wrote on stdout and stderr so far. */
  output(): string;
  /** Its exit code, once it has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL to its process group after 5 s; nothing once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts it on two free ports, in a process group of its own (should it hang, the group, start-app and the app it
 * spawned, is killed), and resolves once it printed its banner. Rejects, having stopped it, when it exits first or is
 * not ready within `readyWithinMs` (start-app.js builds the demo first when its build is older than the sources).
 */
export async function startOAuthDemo(readyWithinMs: number): Promise<OAuthDemoProcess> {
  const port = await freePort();
  let authPort: number;
  do authPort = await freePort();
  while (authPort === port);
  const child = spawn(process.execPath, START, {
    cwd: ROOT,
    env: scrubbedEnv({ PORT: String(port), AUTH_PORT: String(authPort), NO_COLOR: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }, 5_000);
    process.kill(child.pid, 'SIGTERM');
    await exited;
    clearTimeout(timer);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`The demo did not start:\n${output}`)), readyWithinMs);
      const ready = () => {
        if (!output.includes('Development only')) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout!.on('data', ready);
      child.stderr!.on('data', ready);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`The demo exited (${code}) before it was ready:\n${output}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    child,
    port,
    resource: `http://127.0.0.1:${port}/mcp`,
    authPort,
    issuer: `http://127.0.0.1:${authPort}`,
    output: () => output,
    exited,
    stop,
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

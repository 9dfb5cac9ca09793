import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { scrubbedEnv } from './client-peer.process';

const ROOT = join(__dirname, '..', '..');

/** The demo server started as `npm start` does (`node scripts/start-app.js demo-server …`), as a child process. */
export interface DemoProcess {
  child: ChildProcess;
  /** What it wrote on stdout and stderr so far. */
  output(): string;
  /** Its exit code, once it has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL to its process group after 5 s; nothing once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts the demo with `args` and `env` (over a scrubbed environment), in a process group of its own (should it
 * hang, the group, start-app and the app it spawned, is killed), and resolves once its output includes `readyText`.
 * Rejects, having stopped it, when it exits first or is not ready within `readyWithinMs` (start-app.js builds the
 * demo first when its build is older than the sources).
 */
export async function startDemoProcess(
  args: string[],
  env: Record<string, string>,
  readyText: string,
  readyWithinMs: number,
): Promise<DemoProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start-app.js'), 'demo-server', ...args], {
    cwd: ROOT,
    env: scrubbedEnv({ ...env, NO_COLOR: '1' }),
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
        if (!output.includes(readyText)) return;
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
  return { child, output: () => output, exited, stop };
}

import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** The preload that makes a spawned server bind 127.0.0.1 and report its address (see the file). */
export const LOOPBACK_PRELOAD = join(__dirname, 'client-loopback.preload.cjs');

/** The environment a spawned peer gets: PATH and HOME of ours, plus what the test names. Nothing else leaks. */
export function scrubbedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME']) if (process.env[name] !== undefined) env[name] = process.env[name]!;
  return { ...env, ...extra };
}

/** A peer server running as a child process, listening on 127.0.0.1. */
export interface PeerProcess {
  child: ChildProcess;
  pid: number;
  /** The address the server bound, as it reported it. */
  address: string;
  port: number;
  /** What the child wrote on stderr and stdout so far. */
  output(): string;
  /** Kills the child by its PID (SIGTERM, then SIGKILL after 2 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Spawns `node --require <loopback preload> <script> [args]` with a scrubbed environment and `PORT=0`, and resolves
 * once the server reported the address it listens on (the preload forces 127.0.0.1 for listens that name no host).
 */
export async function spawnHttpPeer(script: string, args: string[], timeoutMs = 15_000): Promise<PeerProcess> {
  const child = spawn(process.execPath, ['--require', LOOPBACK_PRELOAD, script, ...args], {
    env: scrubbedEnv({ PORT: '0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.kill(child.pid!, 'SIGTERM');
    const timer = setTimeout(
      () => child.exitCode === null && child.signalCode === null && process.kill(child.pid!, 'SIGKILL'),
      2_000,
    );
    await exited;
    clearTimeout(timer);
  };
  try {
    const { address, port } = await new Promise<{ address: string; port: number }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`The peer did not listen within ${timeoutMs} ms:\n${output}`)),
        timeoutMs,
      );
      const onData = () => {
        const match = /conduit-e2e listening (\S+) (\d+)/.exec(output);
        if (!match) return;
        clearTimeout(timer);
        resolve({ address: match[1], port: Number(match[2]) });
      };
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`The peer exited (${code}) before listening:\n${output}`)));
      child.once('error', reject);
    });
    return { child, pid: child.pid!, address, port, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Whether a process with this PID still runs (signal 0 checks without signalling). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The `_meta` of a 2026-07-28 (modern-era) request. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'scenario', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A command line a {@link ScenarioProcess} runs as given, instead of a scenario file on ts-node. */
export interface ScenarioCommand {
  command: string;
  args: string[];
  cwd: string;
}

function onTsNode(file: string): ScenarioCommand {
  const register = ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'];
  return { command: process.execPath, args: [...register, file], cwd: ROOT };
}

/** Options of a {@link ScenarioProcess}. */
export interface ScenarioOptions {
  args?: string[];
  /** The child's environment beyond PATH and HOME. */
  env?: Record<string, string>;
  /** `manual`: nothing reads the child's stdout until the test does (`child.stdout`). Default: read into `lines`. */
  stdout?: 'lines' | 'manual';
}

/**
 * A scenario app (a TypeScript file under test/scenarios/) running as a child process on ts-node, or a command line
 * run as given: its stdout as raw lines, its stderr as text, its exit. `stop()` kills it if it still runs; every test
 * that starts one stops it.
 */
export class ScenarioProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every line written on stdout, as written. */
  readonly lines: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  private stderrText = '';
  private partial = '';

  constructor(app: string | ScenarioCommand, { args = [], env = {}, stdout = 'lines' }: ScenarioOptions = {}) {
    const { command, args: appArgs, cwd } = typeof app === 'string' ? onTsNode(app) : app;
    this.child = spawn(command, [...appArgs, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: 'pipe',
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() }));
      // A command that cannot start (not on PATH) emits `error` and no `exit`.
      this.child.once('error', (error) => {
        this.stderrText += `${error.message}\n`;
        resolve({ code: null, signal: null, at: Date.now() });
      });
    });
    this.child.stdin.on('error', () => undefined); // EPIPE once the child is gone
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderrText += chunk));
    if (stdout === 'lines') this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => this.take(chunk));
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** Everything the child wrote so far: stderr, then the lines of stdout. */
  get output(): string {
    return `${this.stderrText}\n${this.lines.join('\n')}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The child's resident memory, in bytes (`VmRSS` of /proc/<pid>/status). */
  rss(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
  }

  /** Bytes the child has read so far, from any file or pipe (`rchar` of /proc/<pid>/io). */
  bytesRead(): number {
    return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${this.pid}/io`, 'utf8'))![1]);
  }

  /** Writes one JSON-RPC message as a line on the child's stdin; returns what `write()` returned. */
  send(message: object): boolean {
    return this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends `initialize` (2025-11-25, id 1) and `notifications/initialized`, without waiting for the answer. */
  sendInitialize(): void {
    this.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** The stdout lines parsed as JSON (throws on a line that is not). */
  messages(): Array<Record<string, unknown>> {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Resolves once `check` holds, polling; rejects with what the child wrote after `timeoutMs`. */
  async waitFor(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${this.stderrText}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Resolves with the response to request `id` on stdout. */
  async response(id: number | string, timeoutMs = 60_000): Promise<Record<string, unknown>> {
    let found: Record<string, unknown> | undefined;
    await this.waitFor(
      () => (found = this.messages().find((message) => message.id === id && !('method' in message))) !== undefined,
      `the response to ${id}`,
      timeoutMs,
    );
    return found!;
  }

  /** Kills the child (SIGKILL) unless it already exited, and waits for its exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  private take(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = parts.pop()!;
    for (const line of parts) if (line !== '') this.lines.push(line);
  }
}

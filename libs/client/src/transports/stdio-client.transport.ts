import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { JsonRpcMessage, LineFramer, coalesceWrites, parseJson, sanitizeText, serializeLine } from '@conduit-mcp/core';
import { ByteRing } from './byte.ring';
import { MessageTooLargeError, ServerExitedError } from './client-transport.errors';
import { ClientTransport } from './client-transport.interface';
import { inheritedEnvironment } from './inherited-environment';

/** The server process to spawn. */
export interface StdioClientConfig {
  command: string;
  args?: string[];
  /** Added to the safelisted environment (see `INHERITED_ENV_VARS`); nothing else of ours leaks. */
  env?: Record<string, string>;
  cwd?: string;
}

/** Options of {@link StdioClientTransport}. */
export interface StdioClientOptions {
  /** Longest line accepted from the server's stdout. Default 10 MiB. */
  maxLineBytes?: number;
}

const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;
const STDERR_KEPT_BYTES = 64 * 1024;
/** How long each step of the close ladder (stdin closed, then SIGTERM) waits for the child to exit. */
const EXIT_GRACE_MS = 2_000;
/** After the child exited, how long its stdout may stay open (held by a grandchild) before we stop reading. */
const DRAIN_AFTER_EXIT_MS = 1_000;
/** What a {@link ServerExitedError} quotes of the child's stderr: its last lines, at most this many characters. */
const STDERR_TAIL_LINES = 5;
const STDERR_TAIL_CHARS = 600;

/**
 * Runs an MCP server as a child process and speaks newline-delimited JSON-RPC over its stdin and stdout.
 *
 * The child is spawned without a shell, with only the safelisted variables of our environment (see
 * `INHERITED_ENV_VARS`) plus `config.env`. A stdout line that is not JSON, or longer than `maxLineBytes` (dropped,
 * {@link MessageTooLargeError}), is reported through `onerror` and never delivered. The last 64 KiB of stderr are
 * kept in {@link stderr}, and each stderr line (raw: sanitize before logging it) goes to `onstderr`.
 *
 * `close()` ends stdin and waits up to 2 s for the child to exit, then sends SIGTERM and waits 2 s more, then
 * SIGKILL; it resolves once the child is gone. `onclose` fires once, when the child has exited (whoever ended
 * it), after its last output was delivered; {@link exitCode} and {@link exitSignal} then tell how it ended.
 */
export class StdioClientTransport implements ClientTransport {
  onmessage?: ClientTransport['onmessage'];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Each line the child writes to stderr, as it comes. */
  onstderr?: (line: string) => void;

  private readonly maxLineBytes: number;
  private readonly framer: LineFramer;
  private readonly stderrFramer = new LineFramer({ maxLineBytes: STDERR_KEPT_BYTES });
  private readonly stderrRing = new ByteRing(STDERR_KEPT_BYTES);
  private child: ChildProcessWithoutNullStreams | undefined;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private exitedOnItsOwn: ServerExitedError | undefined;
  private closing = false;
  private finished = false;
  private drainTimer: NodeJS.Timeout | undefined;
  private readonly exited: Promise<void>;
  private readonly gone: Promise<void>;
  private markExited!: () => void;
  private markGone!: () => void;

  constructor(
    private readonly config: StdioClientConfig,
    options: StdioClientOptions = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.framer = new LineFramer({ maxLineBytes: this.maxLineBytes });
    this.exited = new Promise((resolve) => (this.markExited = resolve));
    this.gone = new Promise((resolve) => (this.markGone = resolve));
  }

  /** The child's process id, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The child's exit code once it exited (null when a signal ended it); undefined while it runs. */
  get exitCode(): number | null | undefined {
    return this.exit?.code;
  }

  /** The signal that ended the child, if one did. */
  get exitSignal(): NodeJS.Signals | null | undefined {
    return this.exit?.signal;
  }

  /** The last 64 KiB the child wrote to stderr. */
  get stderr(): string {
    return this.stderrRing.toString();
  }

  /** Why the connection ended, when the child ended it: its exit code or signal and the end of its stderr. */
  get closeReason(): ServerExitedError | undefined {
    return this.exitedOnItsOwn;
  }

  /** Spawns the child; rejects with a clear error when it cannot be started (e.g. the command does not exist). */
  async start(): Promise<void> {
    if (this.child || this.closing) throw new Error(this.closing ? 'Transport is closed' : 'Transport already started');
    const { command, args = [], env, cwd } = this.config;
    const child = spawn(command, args, {
      shell: false,
      env: { ...inheritedEnvironment(), ...env },
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => {
        this.closing = this.finished = true;
        reject(new Error(`Cannot start MCP server "${command}": ${error.message}`, { cause: error }));
      };
      child.once('error', onError);
      child.once('spawn', () => {
        child.off('error', onError);
        resolve();
      });
    });
    child.on('error', (error) => this.onerror?.(error));
    child.stdin.on('error', (error) => this.closing || this.onerror?.(error));
    child.stdout.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stderr.on('data', (chunk: Buffer) => this.onStderr(chunk));
    child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      if (!this.closing) this.exitedOnItsOwn = new ServerExitedError(this.config.command, code, signal, '');
      this.markExited();
      this.drainTimer = setTimeout(() => this.finish(), DRAIN_AFTER_EXIT_MS);
    });
    child.on('close', () => this.finish());
  }

  /** Writes one JSON line; when the pipe is full, resolves once it drained. */
  async send(message: JsonRpcMessage): Promise<void> {
    const child = this.child;
    if (this.exitedOnItsOwn) throw this.exitedOnItsOwn;
    if (!child || this.closing || this.exit) throw new Error('Transport is not open');
    await write(child.stdin, serializeLine(message));
  }

  /** Ends stdin, then SIGTERM after 2 s, then SIGKILL after 2 s more; resolves when the child is gone. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) {
      if (!this.closing) {
        this.closing = this.finished = true;
        this.onclose?.();
      }
      return;
    }
    if (this.finished && !this.exit) return; // never started
    this.closing = true;
    if (!this.exit) {
      child.stdin.end();
      if (!(await this.exitsWithin(EXIT_GRACE_MS))) {
        child.kill('SIGTERM');
        if (!(await this.exitsWithin(EXIT_GRACE_MS))) child.kill('SIGKILL');
      }
    }
    await this.gone;
  }

  private async exitsWithin(ms: number): Promise<boolean> {
    const timer = new AbortController();
    const timedOut = sleep(ms, false, { signal: timer.signal }).catch(() => false);
    const exited = await Promise.race([this.exited.then(() => true), timedOut]);
    timer.abort();
    return exited;
  }

  private onStdout(chunk: Buffer): void {
    for (const frame of this.framer.push(chunk)) {
      if (this.closing) return;
      if ('overflow' in frame) {
        this.onerror?.(new MessageTooLargeError(this.maxLineBytes));
        continue;
      }
      const parsed = parseJson(frame.line);
      if (!parsed.ok) {
        this.onerror?.(new Error('The server wrote a stdout line that is not JSON'));
        continue;
      }
      try {
        this.onmessage?.(parsed.value);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  private onStderr(chunk: Buffer): void {
    this.stderrRing.push(chunk);
    if (!this.onstderr) return;
    for (const frame of this.stderrFramer.push(chunk)) if ('line' in frame) this.onstderr(frame.line);
  }

  // The child exited and its output is read (or it stayed open too long after the exit): report the close once.
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.closing = true;
    clearTimeout(this.drainTimer);
    this.child?.stdout.destroy();
    this.child?.stderr.destroy();
    // Its stderr is read to the end by now: the reason quotes it.
    if (this.exitedOnItsOwn) {
      const { exitCode, signal } = this.exitedOnItsOwn;
      this.exitedOnItsOwn = new ServerExitedError(this.config.command, exitCode, signal, stderrTail(this.stderr));
    }
    this.markGone();
    this.onclose?.();
  }
}

function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error | null) => {
      if (settled) return;
      settled = true;
      stream.off('drain', onDrain);
      stream.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(new Error('The server closed its stdin'));
    coalesceWrites(stream);
    const accepted = stream.write(text, (error) => error && settle(error));
    if (accepted) return settle();
    stream.on('drain', onDrain);
    stream.on('close', onClose);
  });
}

// The last lines of a child's stderr, on one line, without control characters.
function stderrTail(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(-STDERR_TAIL_LINES);
  const joined = lines.join(' | ');
  return sanitizeText(joined.length > STDERR_TAIL_CHARS ? `…${joined.slice(-STDERR_TAIL_CHARS)}` : joined, 1_000);
}

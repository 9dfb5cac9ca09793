import { Console } from 'node:console';

// Every console method: those that write to stdout, and those whose state (group indentation, counters, timers) the
// redirected ones share.
const CONSOLE_METHODS = [
  'log',
  'info',
  'debug',
  'dir',
  'dirxml',
  'table',
  'trace',
  'warn',
  'error',
  'assert',
  'count',
  'countReset',
  'group',
  'groupCollapsed',
  'groupEnd',
  'time',
  'timeLog',
  'timeEnd',
] as const;

/**
 * Keeps stdout for the protocol: from now on `console.*` and stray `process.stdout.write` calls (from the app, or a
 * library) write to stderr. A transport made earlier keeps stdout's own `write` (StdioTransport takes it when made).
 * Console output gets colours only when stderr is a terminal.
 */
export function reserveStdoutForProtocol(): void {
  const stderr = process.stderr;
  const console = globalThis.console as unknown as Record<string, unknown>;
  const toStderr = new Console({ stdout: stderr, stderr }) as unknown as Record<string, unknown>;
  for (const method of CONSOLE_METHODS) {
    if (typeof toStderr[method] === 'function') console[method] = toStderr[method];
  }
  process.stdout.write = function write(...args: unknown[]): boolean {
    return (stderr.write as (...args: unknown[]) => boolean).apply(stderr, args);
  } as typeof process.stdout.write;
}

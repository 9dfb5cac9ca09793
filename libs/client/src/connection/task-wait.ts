import { sanitizeText } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { McpTaskInfo } from './mcp-task.types';

/** The longest delay a Node timer takes; a longer one would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Polling follows the server's interval, never faster than the minimum, and the default when it suggests none. */
export const MIN_POLL_INTERVAL_MS = 100;
export const DEFAULT_POLL_INTERVAL_MS = 1_000;

/** How long to wait before asking about the task again. */
export function pollDelay(task: McpTaskInfo): number {
  return Math.min(MAX_TIMER_MS, Math.max(MIN_POLL_INTERVAL_MS, task.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => (signal.removeEventListener('abort', stop), resolve()), ms);
    const stop = () => (clearTimeout(timer), reject(signal.reason));
    signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * The limits of one `awaitTask`: the caller's signal and timeout, as one signal for every request and pause of the
 * wait. Aborted by the caller, it stops waiting with kind `cancelled`; past the timeout, with kind `timeout`; the task
 * itself is not touched either way.
 */
export class TaskWait {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly deadline: number | undefined;
  private readonly onAbort: () => void;

  constructor(
    taskId: string,
    private readonly options: { signal?: AbortSignal; timeout?: number },
  ) {
    const id = sanitizeText(taskId, 128);
    this.onAbort = () =>
      this.controller.abort(
        new McpClientError('cancelled', `Stopped waiting for task ${id}; the task goes on (cancelTask stops it)`),
      );
    if (options.signal?.aborted) this.onAbort();
    else options.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (options.timeout !== undefined) {
      this.deadline = Date.now() + options.timeout;
      this.timer = setTimeout(
        () =>
          this.controller.abort(
            new McpClientError('timeout', `Task ${id} did not end within ${options.timeout} ms; it goes on`),
          ),
        Math.min(Math.max(0, options.timeout), MAX_TIMER_MS),
      );
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The time one request of the wait may take: its usual deadline, cut to what is left of the wait's. */
  requestTimeout(usualMs: number): number {
    return this.deadline === undefined ? usualMs : Math.max(1, Math.min(usualMs, this.deadline - Date.now()));
  }

  /** Resolves after `ms`, or rejects as soon as the wait is stopped. */
  pause(ms: number): Promise<void> {
    return pause(ms, this.signal);
  }

  /** The work's outcome, or the reason the wait stopped first (a handler slow to heed the signal is not waited for). */
  within<T>(work: Promise<T>): Promise<T> {
    const { signal } = this;
    if (signal.aborted) return Promise.reject(signal.reason);
    let stop = () => undefined as void;
    const stopped = new Promise<never>((_, reject) => {
      stop = () => reject(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
    });
    return Promise.race([work, stopped]).finally(() => signal.removeEventListener('abort', stop));
  }

  /** Once the wait was stopped, why (rather than the error of the request it cut short); else the error itself. */
  reasonFor(error: unknown): unknown {
    return this.signal.aborted ? this.signal.reason : error;
  }

  /** Releases the timer and the caller's signal. */
  end(): void {
    clearTimeout(this.timer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }
}

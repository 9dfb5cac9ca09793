import { JsonRpcId } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';

/** Progress reported by the server for a call. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * One request awaiting its response. Its deadline (`timeoutMs`) may be paused while the server asks the client a
 * question for it, but never beyond `maxTotalTimeoutMs` from the start.
 */
export class PendingCall {
  readonly promise: Promise<Record<string, unknown>>;
  private resolveFn!: (result: Record<string, unknown>) => void;
  private rejectFn!: (error: Error) => void;
  private timer: NodeJS.Timeout | undefined;
  private totalTimer: NodeJS.Timeout | undefined;
  private remainingMs: number;
  private startedAt = Date.now();
  private pauses = 0;
  private settled = false;

  constructor(
    readonly id: JsonRpcId,
    readonly method: string,
    timeoutMs: number,
    maxTotalTimeoutMs: number | undefined,
    readonly assigns: Record<string, unknown>,
    readonly onProgress: ((progress: McpProgress) => void) | undefined,
    private readonly onExpire: (call: PendingCall, error: McpClientError) => void,
  ) {
    this.remainingMs = timeoutMs;
    this.promise = new Promise((resolve, reject) => {
      this.resolveFn = resolve;
      this.rejectFn = reject;
    });
    this.arm();
    if (maxTotalTimeoutMs !== undefined) {
      this.totalTimer = setTimeout(
        () => this.expire(`${method} exceeded its total timeout of ${maxTotalTimeoutMs} ms`),
        maxTotalTimeoutMs,
      );
    }
  }

  get done(): boolean {
    return this.settled;
  }

  /** Stops the deadline while the server waits on the client (nested pauses count). */
  pause(): void {
    if (this.settled || this.pauses++ > 0) return;
    clearTimeout(this.timer);
    this.remainingMs = Math.max(0, this.remainingMs - (Date.now() - this.startedAt));
  }

  resume(): void {
    if (this.settled || this.pauses === 0 || --this.pauses > 0) return;
    this.startedAt = Date.now();
    this.arm();
  }

  resolve(result: Record<string, unknown>): void {
    if (this.finish()) this.resolveFn(result);
  }

  reject(error: Error): void {
    if (this.finish()) this.rejectFn(error);
  }

  private arm(): void {
    this.timer = setTimeout(() => this.expire(`${this.method} timed out after its deadline`), this.remainingMs);
  }

  private expire(message: string): void {
    if (this.settled) return;
    const error = new McpClientError('timeout', message);
    this.onExpire(this, error);
    this.reject(error);
  }

  private finish(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    clearTimeout(this.totalTimer);
    return true;
  }
}

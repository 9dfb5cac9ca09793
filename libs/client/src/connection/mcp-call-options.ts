import type { McpProgress } from './pending-call';

/** Options of one call to a server. */
export interface McpCallOptions {
  /** Deadline of the call in ms (default: the module's `requestTimeoutMs`, 60 s). */
  timeout?: number;
  /** Upper bound in ms even while the deadline is paused by the server's questions. */
  maxTotalTimeout?: number;
  signal?: AbortSignal;
  onProgress?: (progress: McpProgress) => void;
  /** Handed to the handlers of questions the server asks for this call. */
  assigns?: Record<string, unknown>;
}

import type { CallToolResult, ModernTask } from '@conduit-mcp/core';
import type { McpCallOptions } from './mcp-call-options';

/**
 * A task as the server reported it, the same in both eras (2025-11-25 spells `ttl` and `pollInterval`, the tasks
 * extension `ttlMs` and `pollIntervalMs`; the client reads either into this shape, the extension's).
 */
export type McpTaskInfo = ModernTask;

/** What `callToolAsTask` resolves: the task the server started, or the tool's result when it answered at once. */
export type McpTaskStart = { task: McpTaskInfo } | { result: CallToolResult };

/** Options of `callToolAsTask`; the call's own options bound the request that creates the task, not the task. */
export interface McpTaskCallOptions extends McpCallOptions {
  /**
   * Legacy era: how long the server should keep the task, in ms (`task.ttl`; the server may choose otherwise and
   * says so in the task's `ttlMs`). Not sent in the modern era, where the server alone decides.
   */
  ttlMs?: number;
}

/** Options of `awaitTask`. */
export interface McpAwaitTaskOptions {
  /**
   * Called with the task on each change of its status or status message, from polling and (legacy) the server's
   * `notifications/tasks/status`, in order; what it throws is ignored.
   */
  onStatus?(task: McpTaskInfo): void;
  /** Stops waiting (the promise rejects with kind `cancelled`); the task itself goes on: see `cancelTask`. */
  signal?: AbortSignal;
  /**
   * Most ms to wait (kind `timeout` past it). Default: no limit in the modern era; in the legacy era, until a little
   * after the task's retention ends.
   */
  timeout?: number;
  /** Handed to the handlers of the questions the task asks. */
  assigns?: Record<string, unknown>;
}

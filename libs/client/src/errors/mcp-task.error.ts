import { sanitizeText } from '@conduit-mcp/core';
import { McpClientError } from './mcp-client.error';
import { rpcErrorMessage } from './rpc-error.message';

/**
 * A task that ended `failed`: `code`, `message` and `data` are the JSON-RPC error the tool call would have answered
 * without a task. A tool error is not one: it is the task's result, with `isError: true`.
 *
 * @example
 * ```ts
 * try {
 *   return await client.awaitTask(taskId);
 * } catch (error) {
 *   if (error instanceof McpTaskFailedError) logger.warn(`task ${error.taskId} failed with ${error.code}`);
 *   throw error;
 * }
 * ```
 */
export class McpTaskFailedError extends McpClientError {
  constructor(
    readonly taskId: string,
    code: number,
    message: string,
    data?: unknown,
  ) {
    super('rpc', `Task ${sanitizeText(taskId, 128)} failed: ${rpcErrorMessage(code, message, data)}`, code, data);
    this.name = 'McpTaskFailedError';
  }
}

/** A task that ended `cancelled` (by `cancelTask`, another client or the server): it has no result. */
export class McpTaskCancelledError extends McpClientError {
  constructor(
    readonly taskId: string,
    statusMessage?: string,
  ) {
    const why = statusMessage ? `: ${sanitizeText(statusMessage, 512)}` : '';
    super('cancelled', `Task ${sanitizeText(taskId, 128)} was cancelled${why}`);
    this.name = 'McpTaskCancelledError';
  }
}

import { Era, ErrorCode, TaskStatus, isJsonObject, sanitizeText } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { McpTaskFailedError } from '../errors/mcp-task.error';
import { McpTaskInfo } from './mcp-task.types';

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/** The statuses a task never leaves. */
export const FINAL_STATUSES: ReadonlySet<TaskStatus> = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);

/**
 * A task as the server put it on the wire, in the spelling of its era, read into an `McpTaskInfo`; only the task's
 * own fields are kept (not a result, an error or questions that came with it). `from` names the message, for the
 * error of one that is not a task.
 */
export function readTaskInfo(wire: unknown, era: Era, from: string): McpTaskInfo {
  if (!isJsonObject(wire)) throw notATask(from, 'no task object');
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt } = wire;
  if (typeof taskId !== 'string' || taskId === '') throw notATask(from, 'no taskId');
  if (typeof status !== 'string' || !STATUSES.has(status))
    throw notATask(from, `an unknown status ${sanitizeText(String(status), 32)}`);
  const ttl = era === 'legacy' ? wire.ttl : wire.ttlMs;
  const poll = era === 'legacy' ? wire.pollInterval : wire.pollIntervalMs;
  const task: McpTaskInfo = {
    taskId,
    status: status as TaskStatus,
    createdAt: typeof createdAt === 'string' ? createdAt : '',
    lastUpdatedAt: typeof lastUpdatedAt === 'string' ? lastUpdatedAt : '',
    ttlMs: typeof ttl === 'number' && ttl >= 0 ? ttl : null,
  };
  if (typeof statusMessage === 'string') task.statusMessage = statusMessage;
  if (typeof poll === 'number' && poll > 0) task.pollIntervalMs = poll;
  return task;
}

/** The error of a request about a task that the server does not know (-32602: never made, expired, not ours). */
export function unknownTask(taskId: string, data?: unknown): McpClientError {
  return new McpClientError(
    'rpc',
    `Task ${sanitizeText(taskId, 128)} is unknown to the server: it expired (its ttl passed), ` +
      'was never created, or belongs to another client',
    ErrorCode.InvalidParams,
    data,
  );
}

/** Whether an error is the server's -32602 (a task id it does not know). */
export function isUnknownTask(error: unknown): error is McpClientError {
  return error instanceof McpClientError && error.kind === 'rpc' && error.code === ErrorCode.InvalidParams;
}

/** The error of a `failed` modern task (its `error`: the JSON-RPC error the call would have answered). */
export function failureOf(task: McpTaskInfo, error: unknown): McpTaskFailedError {
  const wire = isJsonObject(error) ? error : {};
  return new McpTaskFailedError(
    task.taskId,
    typeof wire.code === 'number' ? wire.code : ErrorCode.InternalError,
    typeof wire.message === 'string' ? wire.message : (task.statusMessage ?? 'The task failed'),
    wire.data,
  );
}

function notATask(from: string, what: string): McpClientError {
  return new McpClientError('protocol', `The server answered ${from} with ${what} where a task belongs`);
}

import { ErrorCode, META_RELATED_TASK } from '@conduit-mcp/core';
import type { CallToolResult, DetailedTask, LegacyTask, ModernTask } from '@conduit-mcp/core';
import { TaskRecord } from './task.store';

/** A task as revision 2025-11-25 puts it on the wire: `ttl`, `pollInterval`, ISO 8601 timestamps. */
export function toLegacyTask(record: TaskRecord): LegacyTask {
  const task: LegacyTask = {
    taskId: record.taskId,
    status: record.status,
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
    ttl: record.ttlMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  if (record.pollIntervalMs !== undefined) task.pollInterval = record.pollIntervalMs;
  return task;
}

/** A task as the tasks extension puts it on the wire: `ttlMs`, `pollIntervalMs`, ISO 8601 timestamps. */
export function toModernTask(record: TaskRecord): ModernTask {
  const task: ModernTask = {
    taskId: record.taskId,
    status: record.status,
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
    ttlMs: record.ttlMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  if (record.pollIntervalMs !== undefined) task.pollIntervalMs = record.pollIntervalMs;
  return task;
}

/**
 * The modern task with the fields of its status (what `tasks/get` answers): every outstanding question while
 * `input_required`, the tool's result once `completed`, the JSON-RPC error (and no result) once `failed`. The schema
 * requires each of them for its status, so a record that lacks one still projects a valid task.
 */
export function toDetailedTask(record: TaskRecord): DetailedTask {
  const task: DetailedTask = toModernTask(record);
  switch (record.status) {
    case 'input_required':
      task.inputRequests = record.inputRequests ?? {};
      break;
    case 'completed':
      task.result = inlined(record.result ?? { content: [] });
      break;
    case 'failed':
      task.error = record.error ?? {
        code: ErrorCode.InternalError,
        message: record.statusMessage ?? 'The task failed',
      };
      break;
  }
  return task;
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** The result without the related-task `_meta`: inlined in its own task, it must not point at a task. */
function inlined(result: Record<string, unknown>): CallToolResult {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || !(META_RELATED_TASK in meta)) return result as CallToolResult;
  const { [META_RELATED_TASK]: _related, ...rest } = meta;
  const { _meta: _dropped, ...fields } = result;
  return (Object.keys(rest).length ? { ...fields, _meta: rest } : fields) as CallToolResult;
}

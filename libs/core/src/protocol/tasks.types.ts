/**
 * Hand-written mirrors of the task types of both eras: the experimental tasks of revision 2025-11-25 ("legacy") and
 * the tasks extension `io.modelcontextprotocol/tasks` of revision 2026-07-28 ("modern"). The two spell the same
 * fields differently (`ttl` / `ttlMs`, `pollInterval` / `pollIntervalMs`) and wrap the create result differently.
 * `ToolExecution` (legacy `Tool.execution`) lives beside `Tool` in protocol.types.ts, which cannot import this file.
 */
import type { JsonRpcErrorObject } from '../jsonrpc/jsonrpc.types';
import type { CallToolResult, Meta } from './protocol.types';

/**
 * The extension id of modern tasks, under `capabilities.extensions` (server and, per request, client).
 *
 * @example
 * const meta = { [META_CLIENT_CAPABILITIES]: { extensions: { [TASKS_EXTENSION_ID]: {} } } };
 */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** The `_meta` key (legacy era) tying a message to a task: `{ taskId }`. */
export const META_RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** The states of a task; `completed`, `failed` and `cancelled` are final. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Legacy: the `task` param of an augmented request (the requestor's wish; the receiver may override it). */
export interface TaskMetadata {
  /** Requested retention from creation, in milliseconds. */
  ttl?: number;
}

/** Legacy: a task on the wire (`tasks/get`, `tasks/list`, `notifications/tasks/status`, inside `CreateTaskResult`). */
export interface LegacyTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** Actual retention from creation in milliseconds, null for unlimited. */
  ttl: number | null;
  /** Suggested polling interval in milliseconds. */
  pollInterval?: number;
}

/** Legacy: the answer to a task-augmented request, the task wrapped in `task`. */
export interface LegacyCreateTaskResult {
  task: LegacyTask;
  _meta?: Meta;
}

/** Modern: a task on the wire, flat, with `ttlMs` / `pollIntervalMs`. */
export interface ModernTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** Retention from creation in milliseconds, null for unlimited. */
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/**
 * Questions a task waits on, by key (unique over the task's lifetime): `elicitation/create`,
 * `sampling/createMessage` or `roots/list`, with their params.
 */
export type TaskInputRequests = Record<string, { method: string; params: Record<string, unknown> }>;

/** Modern: what `tools/call` answers when it started a task. */
export type ModernCreateTaskResult = ModernTask & { resultType: 'task'; _meta?: Meta };

/**
 * Modern: a task with the fields of its status: `inputRequests` (all outstanding) while `input_required`, the tool's
 * `result` once `completed` (also when `isError`), the JSON-RPC `error` once `failed`.
 */
export type DetailedTask = ModernTask & {
  inputRequests?: TaskInputRequests;
  result?: CallToolResult;
  error?: JsonRpcErrorObject;
};

/** Modern: the answer to `tasks/get`. */
export type GetTaskResult = DetailedTask & { resultType: 'complete'; _meta?: Meta };

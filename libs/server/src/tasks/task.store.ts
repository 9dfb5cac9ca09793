import type { Era, TaskInputRequests, TaskStatus } from '@conduit-mcp/core';
import type { McpStateHealth } from '../health/state-health.interface';

/** The states of a task (the protocol's `TaskStatus`, under the server's earlier name). */
export type McpTaskStatus = TaskStatus;

/** The states a task does not leave. */
export const TERMINAL_TASK_STATUSES: ReadonlySet<McpTaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/**
 * A task as data: serializable, bound to its owner (the principal or session that created it: nobody else sees
 * it), kept until `expiresAt`.
 */
export interface TaskRecord {
  taskId: string;
  /** Who may see and change the task. */
  owner: string;
  /** The server it belongs to. */
  server: string;
  /** The request that created it (`tools/call`) and its params, for the runner. */
  method: string;
  /** The era of the request that created it: it decides the wire shape and how a tool error ends the task. */
  era: Era;
  /** The tool it runs, for `tools/call`. */
  tool?: string;
  status: McpTaskStatus;
  statusMessage?: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  lastUpdatedAt: number;
  /** Retention from creation, in milliseconds; `expiresAt` is `createdAt + ttlMs`. */
  ttlMs: number;
  expiresAt: number;
  pollIntervalMs?: number;
  /** The questions the task waits on (modern era), by key, kept here so any instance can answer `tasks/get`. */
  inputRequests?: TaskInputRequests;
  /** The final result (completed) or JSON-RPC error (failed), once terminal. */
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * The fields of a task its runner changes. A field the changes do not name is kept; an optional field named with the
 * value `undefined` is removed (e.g. `inputRequests: undefined` once every question is answered); `status` stays.
 */
export type TaskChanges = Partial<
  Pick<TaskRecord, 'status' | 'statusMessage' | 'result' | 'error' | 'pollIntervalMs' | 'inputRequests'>
>;

/** One page of an owner's tasks, newest first; `nextCursor` while more remain. */
export interface TaskPage {
  tasks: TaskRecord[];
  nextCursor?: string;
}

/**
 * Where tasks are kept, bound to their owners: every read and write names the owner, and a task of another owner
 * is as good as absent. Asynchronous; bounded (per owner and in all, in count and bytes); tasks expire at
 * `expiresAt`. Terminal states are final: an update of a terminal task is refused.
 * Inject it with the token of the same name; choose it with `McpModule.forRoot({ taskStore })`.
 */
export interface TaskStore {
  /** Creates a task; false when a bound is reached (the caller answers with an error, nothing is evicted). */
  create(task: TaskRecord): Promise<boolean>;
  get(owner: string, taskId: string): Promise<TaskRecord | undefined>;
  /** Applies changes; the updated task, or undefined when absent, another owner's, or already terminal. */
  update(owner: string, taskId: string, changes: TaskChanges): Promise<TaskRecord | undefined>;
  /**
   * The owner's tasks, newest first, `limit` per page, from `cursor` (a page's `nextCursor`: it stays valid when the
   * task it was made from expires); undefined for a cursor this store did not make.
   */
  list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined>;
  /** Moves a task that is not terminal to `cancelled`; the task as it now is, or undefined when absent. */
  cancel(owner: string, taskId: string, statusMessage?: string): Promise<TaskRecord | undefined>;
  /**
   * Optional: whether the store can serve now (a shared store: its connection). `McpHealthIndicator` reports it and
   * is down while it is down; an answer slower than 2 s counts as down. Never rejects.
   */
  health?(): Promise<McpStateHealth>;
}

/** The injection token of the {@link TaskStore} (interface and token under one name). */
export const TaskStore = Symbol('TaskStore');

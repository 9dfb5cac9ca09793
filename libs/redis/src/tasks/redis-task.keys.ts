/**
 * The keys of a {@link RedisTaskStore} under its prefix. A task is `task:<taskId>` (task ids have no colon), an
 * owner's list `task:owner:<owner>`, the store's own bookkeeping `task:index:*`: no two of these can meet.
 */
export interface RedisTaskKeys {
  /** The prefix, for the keys the scripts make from it (a task's, an owner's). */
  prefix: string;
  /** The creation counter (INCR): a task's creation number, and so a page's cursor, comes from it. */
  created: string;
  /** Sorted set of task ids by `expiresAt`: the tasks to purge, oldest expiry first. */
  expiry: string;
  /** Hash of task id → `<creation number>:<bytes>:<owner>`, kept until the task is purged, after its hash expired. */
  entries: string;
  /** Hash of the store's totals (`tasks`, `bytes`), corrected as expired tasks are purged. */
  totals: string;
}

/** The keys of the store with this prefix. */
export function taskKeys(prefix: string): RedisTaskKeys {
  return {
    prefix,
    created: `${prefix}task:index:created`,
    expiry: `${prefix}task:index:expiry`,
    entries: `${prefix}task:index:entries`,
    totals: `${prefix}task:index:totals`,
  };
}

/** The hash of one task. */
export function taskKey(prefix: string, taskId: string): string {
  return `${prefix}task:${taskId}`;
}

/** The sorted set of one owner's task ids by creation number. */
export function ownerKey(prefix: string, owner: string): string {
  return `${prefix}task:owner:${owner}`;
}

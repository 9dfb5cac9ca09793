import { McpTaskInfo } from './mcp-task.types';
import { FINAL_STATUSES } from './task-info.reader';

/**
 * What one `awaitTask` learns of its task, from polls and notifications that may cross: `onStatus` hears of each change
 * of status or status message once, never of a view older than the last one reported (by `lastUpdatedAt`), and
 * nothing after a final status.
 */
export class TaskStatusFeed {
  private last: McpTaskInfo | undefined;

  constructor(private readonly onStatus: ((task: McpTaskInfo) => void) | undefined) {}

  /** The latest view of the task, reported or not. */
  get latest(): McpTaskInfo | undefined {
    return this.last;
  }

  /** Takes a view of the task; false when it was older than the latest and so ignored. */
  see(task: McpTaskInfo): boolean {
    const last = this.last;
    if (last && (FINAL_STATUSES.has(last.status) || olderThan(task, last))) return false;
    this.last = task;
    if (last && last.status === task.status && last.statusMessage === task.statusMessage) return true;
    try {
      this.onStatus?.(task);
    } catch {
      // An observer's failure is not the task's: the wait goes on.
    }
    return true;
  }
}

// Timestamps that do not parse say nothing of the order: such a view is taken as new.
function olderThan(task: McpTaskInfo, last: McpTaskInfo): boolean {
  const at = Date.parse(task.lastUpdatedAt);
  const lastAt = Date.parse(last.lastUpdatedAt);
  return at < lastAt;
}

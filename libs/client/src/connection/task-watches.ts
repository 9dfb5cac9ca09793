import { JsonRpcId, META_RELATED_TASK, isJsonObject } from '@conduit-mcp/core';

/** One legacy `awaitTask` as the connection sees it. */
export interface TaskWatch {
  /** The id of its `tasks/result` call, the call the task's questions belong to. */
  readonly resultCall: JsonRpcId;
  /** A `notifications/tasks/status` of the task (params: the task, in the legacy spelling). */
  onStatus(task: Record<string, unknown>): void;
}

/**
 * Legacy era: the tasks being awaited on this connection, so that `notifications/tasks/status` reaches their
 * awaiters, and a question tagged with a task (`_meta["io.modelcontextprotocol/related-task"]`) that arrives on no
 * request's stream still belongs to that task's `tasks/result` call (its assigns, its deadline, its end).
 */
export class TaskWatches {
  private readonly watches = new Map<string, Set<TaskWatch>>();

  /** Follows a task until the returned function is called. */
  watch(taskId: string, watch: TaskWatch): () => void {
    let set = this.watches.get(taskId);
    if (!set) this.watches.set(taskId, (set = new Set()));
    set.add(watch);
    return () => {
      set.delete(watch);
      if (set.size === 0 && this.watches.get(taskId) === set) this.watches.delete(taskId);
    };
  }

  /** `notifications/tasks/status`: to each awaiter of the task it names. */
  status(params: Record<string, unknown>): void {
    const { taskId } = params;
    if (typeof taskId !== 'string') return;
    for (const watch of this.watches.get(taskId) ?? []) watch.onStatus(params);
  }

  /** The `tasks/result` call of the task a message's related-task `_meta` names, when it is awaited here. */
  resultCallFor(meta: unknown): JsonRpcId | undefined {
    const related = isJsonObject(meta) ? meta[META_RELATED_TASK] : undefined;
    const taskId = isJsonObject(related) ? related.taskId : undefined;
    if (typeof taskId !== 'string') return undefined;
    for (const watch of this.watches.get(taskId) ?? []) return watch.resultCall;
    return undefined;
  }
}

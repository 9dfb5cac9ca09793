import { TERMINAL_TASK_STATUSES, TaskRecord, TaskStore } from './task.store';

/** The most queued tasks followed at once; past it the oldest is dropped (its client still polls `tasks/get`). */
const MAX_FOLLOWED = 10_000;

interface Follower {
  owner: string;
  server: string;
  onStatus: (task: TaskRecord) => void;
  /** The task as last told (two changes heard close together may both read the same state: it is told once). */
  told?: { status: string; lastUpdatedAt: number };
}

/**
 * The status listeners of the tasks this instance queued for a worker (a legacy session's status notifications, the
 * modern `subscriptions/listen` streams that follow a task): told of each change a worker announces on the bus
 * (`task-status`), with the task as the store holds it then, until the task ends.
 */
export class TaskFollowers {
  private readonly followed = new Map<string, Follower>();

  constructor(private readonly store: TaskStore) {}

  follow(task: TaskRecord, onStatus: (task: TaskRecord) => void): void {
    if (this.followed.size >= MAX_FOLLOWED) this.followed.delete(this.followed.keys().next().value!);
    this.followed.set(task.taskId, { owner: task.owner, server: task.server, onStatus });
  }

  /** A worker announced a change of the task: its follower, if any, is told of the task as it is now. */
  async changed(server: string, owner: string, taskId: string): Promise<void> {
    const follower = this.followed.get(taskId);
    if (!follower || follower.owner !== owner || follower.server !== server) return;
    const task = await this.store.get(owner, taskId).catch(() => undefined);
    if (this.followed.get(taskId) !== follower) return; // told of its end meanwhile
    if (task && task.status === follower.told?.status && task.lastUpdatedAt === follower.told.lastUpdatedAt) return;
    this.tell(taskId, follower, task);
  }

  /** This instance changed the task itself (cancelled it): its follower, if any, is told. */
  told(task: TaskRecord): void {
    const follower = this.followed.get(task.taskId);
    if (follower?.owner === task.owner) this.tell(task.taskId, follower, task);
  }

  forget(taskId: string): void {
    this.followed.delete(taskId);
  }

  clear(): void {
    this.followed.clear();
  }

  private tell(taskId: string, follower: Follower, task: TaskRecord | undefined): void {
    if (!task || TERMINAL_TASK_STATUSES.has(task.status)) this.followed.delete(taskId);
    if (!task) return;
    follower.told = { status: task.status, lastUpdatedAt: task.lastUpdatedAt };
    follower.onStatus(task);
  }
}

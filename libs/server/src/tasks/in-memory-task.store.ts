import { TaskChanges, TaskPage, TaskRecord, TaskStore, TERMINAL_TASK_STATUSES } from './task.store';

/** Bounds of {@link InMemoryTaskStore}. */
export interface InMemoryTaskStoreOptions {
  /** Most tasks kept in all. Default 10 000. */
  maxTasks?: number;
  /** Most tasks kept per owner. Default 100. */
  maxTasksPerOwner?: number;
  /** Most bytes of tasks kept (their JSON size, results included). Default 64 MiB. */
  maxBytes?: number;
}

interface Entry {
  json: string;
  // Its size in UTF-8 bytes (a string's length counts UTF-16 units: a non-ASCII result would weigh up to 3× less).
  bytes: number;
  owner: string;
  expiresAt: number;
  terminal: boolean;
  /** Its place in the order of creation: a page's cursor is the last listed task's. */
  seq: number;
}

/**
 * The default {@link TaskStore}: one process, bounded in count (in all and per owner) and bytes; expired tasks are
 * dropped on access and when a bound is reached. Records are kept as JSON, so no caller shares an object with it.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Entry>();
  private readonly byOwner = new Map<string, Set<string>>();
  private bytes = 0;
  private created = 0;
  private readonly maxTasks: number;
  private readonly maxPerOwner: number;
  private readonly maxBytes: number;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? 10_000;
    this.maxPerOwner = options.maxTasksPerOwner ?? 100;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  async create(task: TaskRecord): Promise<boolean> {
    if (this.tasks.has(task.taskId)) return false;
    const json = JSON.stringify(task);
    const bytes = Buffer.byteLength(json);
    if (!this.fits(task.owner, bytes)) this.sweep();
    if (!this.fits(task.owner, bytes)) return false;
    this.tasks.set(task.taskId, {
      json,
      bytes,
      owner: task.owner,
      expiresAt: task.expiresAt,
      terminal: TERMINAL_TASK_STATUSES.has(task.status),
      seq: ++this.created,
    });
    this.bytes += bytes;
    let owned = this.byOwner.get(task.owner);
    if (!owned) this.byOwner.set(task.owner, (owned = new Set()));
    owned.add(task.taskId);
    return true;
  }

  async get(owner: string, taskId: string): Promise<TaskRecord | undefined> {
    const entry = this.owned(owner, taskId);
    return entry && (JSON.parse(entry.json) as TaskRecord);
  }

  async update(owner: string, taskId: string, changes: TaskChanges): Promise<TaskRecord | undefined> {
    const entry = this.owned(owner, taskId);
    if (!entry || entry.terminal) return undefined;
    return this.write(taskId, entry, changes);
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined> {
    // The cursor is the creation number of the last task listed: the page goes on below it, whatever expired since.
    const below = cursor === undefined ? Infinity : /^[1-9][0-9]{0,15}$/.test(cursor) ? Number(cursor) : undefined;
    if (below === undefined || (cursor !== undefined && below > this.created)) return undefined;
    const ids = [...(this.byOwner.get(owner) ?? [])].reverse(); // newest first (insertion order)
    const tasks: TaskRecord[] = [];
    let last = 0;
    let more = false;
    for (const id of ids) {
      const entry = this.owned(owner, id);
      if (!entry || entry.seq >= below) continue;
      if (tasks.length === limit) {
        more = true;
        break;
      }
      tasks.push(JSON.parse(entry.json) as TaskRecord);
      last = entry.seq;
    }
    return more ? { tasks, nextCursor: String(last) } : { tasks };
  }

  async cancel(owner: string, taskId: string, statusMessage?: string): Promise<TaskRecord | undefined> {
    const entry = this.owned(owner, taskId);
    if (!entry) return undefined;
    if (entry.terminal) return JSON.parse(entry.json) as TaskRecord;
    return this.write(
      taskId,
      entry,
      statusMessage === undefined ? { status: 'cancelled' } : { status: 'cancelled', statusMessage },
    );
  }

  private write(taskId: string, entry: Entry, changes: TaskChanges): TaskRecord | undefined {
    const task = { ...(JSON.parse(entry.json) as TaskRecord), lastUpdatedAt: Date.now() };
    const fields = task as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(changes)) {
      // Named as undefined: an optional field is removed; the status, which every task has, is kept.
      if (value !== undefined) fields[key] = value;
      else if (key !== 'status') delete fields[key];
    }
    const json = JSON.stringify(task);
    const bytes = Buffer.byteLength(json);
    if (bytes - entry.bytes > this.maxBytes - this.bytes) return undefined;
    this.bytes += bytes - entry.bytes;
    entry.json = json;
    entry.bytes = bytes;
    entry.terminal = TERMINAL_TASK_STATUSES.has(task.status);
    this.tasks.set(taskId, entry);
    return task;
  }

  private fits(owner: string, size: number): boolean {
    return (
      this.tasks.size < this.maxTasks &&
      (this.byOwner.get(owner)?.size ?? 0) < this.maxPerOwner &&
      this.bytes + size <= this.maxBytes
    );
  }

  /** The owner's unexpired entry, or undefined (an expired one is removed). */
  private owned(owner: string, taskId: string): Entry | undefined {
    const entry = this.tasks.get(taskId);
    if (!entry || entry.owner !== owner) return undefined;
    if (Date.now() < entry.expiresAt) return entry;
    this.remove(taskId, entry);
    return undefined;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [taskId, entry] of this.tasks) if (entry.expiresAt <= now) this.remove(taskId, entry);
  }

  private remove(taskId: string, entry: Entry): void {
    this.tasks.delete(taskId);
    this.bytes -= entry.bytes;
    const owned = this.byOwner.get(entry.owner);
    owned?.delete(taskId);
    if (owned?.size === 0) this.byOwner.delete(entry.owner);
  }
}

import type { TaskChanges, TaskPage, TaskRecord, TaskStore } from '@conduit-mcp/server';
import type { Redis } from 'ioredis';
import { RedisHealth, pingHealth } from '../connection/redis.health';
import { checkOwner, decodeRecord, encodeChanges, encodeRecord, isTaskId } from './redis-task.codec';
import { RedisTaskKeys, ownerKey, taskKey, taskKeys } from './redis-task.keys';
import { RedisTaskCommands, defineTaskCommands } from './redis-task.scripts';
import {
  RedisTaskStoreOptions,
  ResolvedRedisTaskStoreOptions,
  resolveTaskStoreOptions,
} from './redis-task-store.options';

export type { RedisTaskStoreOptions } from './redis-task-store.options';

// The creation numbers this store makes, as text: what `list` accepts as a cursor before asking Redis whether it made
// it (as InMemoryTaskStore: no sign, no exponent, no leading zero).
const CURSOR = /^[1-9][0-9]{0,15}$/;

/**
 * A {@link TaskStore} on Redis, shared by every instance of a server: a task is a hash of JSON fields expiring at its
 * `expiresAt`, bound to its owner; every operation is one Lua script, so the owner check, the bounds (count in all
 * and per owner, UTF-8 bytes in all and per task) and the status rules (a terminal task is final) hold across
 * instances. An owner's tasks are listed newest first by creation number, which is also the cursor. Expired tasks are
 * purged lazily, a bounded number per call, correcting the totals. Redis failures reject.
 *
 * @example
 * const store = new RedisTaskStore(redis, { prefix: 'mcp:' });
 * McpModule.forRoot({ taskStore: store });
 */
export class RedisTaskStore implements TaskStore {
  private readonly commands: RedisTaskCommands;
  private readonly options: ResolvedRedisTaskStoreOptions;
  private readonly keys: RedisTaskKeys;

  constructor(
    private readonly redis: Redis,
    options: RedisTaskStoreOptions,
  ) {
    this.options = resolveTaskStoreOptions(options);
    this.keys = taskKeys(this.options.prefix);
    this.commands = defineTaskCommands(redis);
  }

  async create(task: TaskRecord): Promise<boolean> {
    const fields = encodeRecord(task);
    const { prefix, created, expiry, entries, totals } = this.keys;
    const { maxTasks, maxTasksPerOwner, maxBytes, maxTaskBytes } = this.options;
    const answer = await this.commands.conduitTaskCreate(
      taskKey(prefix, task.taskId),
      ownerKey(prefix, task.owner),
      created,
      expiry,
      entries,
      totals,
      prefix,
      task.taskId,
      task.owner,
      String(Math.ceil(task.expiresAt)),
      String(maxTasks),
      String(maxTasksPerOwner),
      String(maxBytes),
      String(maxTaskBytes),
      ...fields,
    );
    return answer === 1;
  }

  async get(owner: string, taskId: string): Promise<TaskRecord | undefined> {
    checkOwner(owner);
    if (!isTaskId(taskId)) return undefined;
    const flat = await this.commands.conduitTaskGet(taskKey(this.keys.prefix, taskId), JSON.stringify(owner));
    return flat ? decodeRecord(flat) : undefined;
  }

  async update(owner: string, taskId: string, changes: TaskChanges): Promise<TaskRecord | undefined> {
    checkOwner(owner);
    const fields = encodeChanges(changes);
    if (!isTaskId(taskId)) return undefined;
    return this.write('update', owner, taskId, fields);
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined> {
    checkOwner(owner);
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new RangeError('RedisTaskStore: limit must be a positive integer');
    if (cursor !== undefined && !CURSOR.test(cursor)) return undefined;
    const { prefix, created, expiry, entries, totals } = this.keys;
    const answer = await this.commands.conduitTaskList(
      ownerKey(prefix, owner),
      created,
      expiry,
      entries,
      totals,
      prefix,
      JSON.stringify(owner),
      cursor ?? '',
      String(limit),
    );
    if (answer[0] !== 1) return undefined;
    const [, nextCursor, ...tasks] = answer;
    const page: TaskPage = { tasks: tasks.map(decodeRecord) };
    if (nextCursor !== '') page.nextCursor = nextCursor;
    return page;
  }

  async cancel(owner: string, taskId: string, statusMessage?: string): Promise<TaskRecord | undefined> {
    checkOwner(owner);
    if (statusMessage !== undefined && typeof statusMessage !== 'string')
      throw new TypeError('RedisTaskStore: statusMessage must be a string');
    if (!isTaskId(taskId)) return undefined;
    const changes: TaskChanges =
      statusMessage === undefined ? { status: 'cancelled' } : { status: 'cancelled', statusMessage };
    return this.write('cancel', owner, taskId, encodeChanges(changes));
  }

  /** Pings Redis over the store's connection (bounded by its command timeout); never throws. */
  health(): Promise<RedisHealth> {
    return pingHealth(this.redis);
  }

  private async write(
    mode: 'update' | 'cancel',
    owner: string,
    taskId: string,
    fields: string[],
  ): Promise<TaskRecord | undefined> {
    const flat = await this.commands.conduitTaskWrite(
      taskKey(this.keys.prefix, taskId),
      this.keys.entries,
      this.keys.totals,
      taskId,
      JSON.stringify(owner),
      mode,
      JSON.stringify(Date.now()),
      String(this.options.maxBytes),
      String(this.options.maxTaskBytes),
      ...fields,
    );
    return flat ? decodeRecord(flat) : undefined;
  }
}

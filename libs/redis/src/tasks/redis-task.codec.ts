import type { TaskChanges, TaskRecord } from '@conduit-mcp/server';

// The fields a task hash may hold, and those an update may name. Typed against the interfaces, so that a field added
// there fails to compile here until the store knows it. Every name is a plain identifier: the scripts count a
// field's JSON size as its name's length plus 4 (quotes, colon, comma), which needs names JSON writes as they are.
const RECORD_FIELDS = {
  taskId: true,
  owner: true,
  server: true,
  method: true,
  era: true,
  tool: true,
  status: true,
  statusMessage: true,
  createdAt: true,
  lastUpdatedAt: true,
  ttlMs: true,
  expiresAt: true,
  pollIntervalMs: true,
  inputRequests: true,
  result: true,
  error: true,
} satisfies Record<keyof TaskRecord, true>;

const CHANGE_FIELDS = {
  status: true,
  statusMessage: true,
  result: true,
  error: true,
  pollIntervalMs: true,
  inputRequests: true,
} satisfies Record<keyof TaskChanges, true>;

const MAX_TASK_ID_LENGTH = 256;
const MAX_OWNER_LENGTH = 1_024;
const MAX_TIME = 8.64e15;

/**
 * Whether `taskId` can name a task of this store: 1 to 256 characters, no colon (a task's key is
 * `<prefix>task:<taskId>`; the store's other keys have a colon after `task:`, so no task id can name one).
 */
export function isTaskId(taskId: unknown): taskId is string {
  return (
    typeof taskId === 'string' && taskId.length > 0 && taskId.length <= MAX_TASK_ID_LENGTH && !taskId.includes(':')
  );
}

/** Refuses an owner that is not a string of 1 to 1 024 characters (owners are made by the server, never by a client). */
export function checkOwner(owner: unknown): asserts owner is string {
  if (typeof owner !== 'string' || owner.length === 0 || owner.length > MAX_OWNER_LENGTH)
    throw new TypeError(`RedisTaskStore: owner must be a string of 1 to ${MAX_OWNER_LENGTH} characters`);
}

/** A task as hash fields and values (flat), each value JSON; fields whose value is undefined are left out. */
export function encodeRecord(task: TaskRecord): string[] {
  if (typeof task !== 'object' || task === null) throw new TypeError('RedisTaskStore: a task must be an object');
  if (!isTaskId(task.taskId))
    throw new TypeError(`RedisTaskStore: taskId must be a string of 1 to ${MAX_TASK_ID_LENGTH} characters, no colon`);
  checkOwner(task.owner);
  if (typeof task.status !== 'string') throw new TypeError('RedisTaskStore: status must be a string');
  // Past a Date's range Redis refuses the expiry, and a script stopped halfway keeps what it wrote.
  if (!Number.isFinite(task.expiresAt) || Math.abs(task.expiresAt) > MAX_TIME)
    throw new TypeError('RedisTaskStore: expiresAt must be a time in milliseconds since the epoch');
  const fields: string[] = [];
  for (const [name, value] of Object.entries(task)) {
    if (!Object.hasOwn(RECORD_FIELDS, name)) throw new TypeError(`RedisTaskStore: a task has no field "${name}"`);
    if (value !== undefined) fields.push(name, json(name, value));
  }
  return fields;
}

/**
 * Changes as hash fields and values (flat): JSON for a value, the empty string (never a JSON text) for a field to
 * remove. A status named undefined is left out: every task keeps one.
 */
export function encodeChanges(changes: TaskChanges): string[] {
  if (typeof changes !== 'object' || changes === null) throw new TypeError('RedisTaskStore: changes must be an object');
  const fields: string[] = [];
  for (const [name, value] of Object.entries(changes)) {
    if (!Object.hasOwn(CHANGE_FIELDS, name)) throw new TypeError(`RedisTaskStore: an update cannot change "${name}"`);
    if (name === 'status' && value !== undefined && typeof value !== 'string')
      throw new TypeError('RedisTaskStore: status must be a string');
    if (value !== undefined) fields.push(name, json(name, value));
    else if (name !== 'status') fields.push(name, '');
  }
  return fields;
}

/** A task from its hash fields and values (flat), as the scripts answer them. */
export function decodeRecord(flat: string[]): TaskRecord {
  const task: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) task[flat[i]] = JSON.parse(flat[i + 1]);
  return task as unknown as TaskRecord;
}

function json(name: string, value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`RedisTaskStore: ${name} has no JSON form`);
  return text;
}

/** Options of {@link RedisTaskStore}: where its keys live, and its bounds (the defaults of `InMemoryTaskStore`). */
export interface RedisTaskStoreOptions {
  /** Prepended to every key of the store (the module's `keyPrefix`); every instance of one server uses the same. */
  prefix: string;
  /** Most tasks kept in all. Default 10 000. */
  maxTasks?: number;
  /** Most tasks kept per owner. Default 100. */
  maxTasksPerOwner?: number;
  /** Most bytes of tasks kept in all (their JSON size in UTF-8, results and questions included). Default 64 MiB. */
  maxBytes?: number;
  /**
   * Most bytes of one task (its JSON size in UTF-8). Default `maxBytes`: `InMemoryTaskStore` has no bound of its own
   * per task, only the total one, and this default keeps the two stores alike.
   */
  maxTaskBytes?: number;
}

/** The options with their defaults applied. */
export interface ResolvedRedisTaskStoreOptions {
  prefix: string;
  maxTasks: number;
  maxTasksPerOwner: number;
  maxBytes: number;
  maxTaskBytes: number;
}

const MAX_PREFIX_LENGTH = 200;

/** Applies the defaults; refuses a malformed option with a message that names it. */
export function resolveTaskStoreOptions(options: RedisTaskStoreOptions): ResolvedRedisTaskStoreOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('RedisTaskStore: options are required');
  const { prefix } = options;
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > MAX_PREFIX_LENGTH)
    throw new TypeError(`RedisTaskStore: prefix must be a string of 1 to ${MAX_PREFIX_LENGTH} characters`);
  const maxBytes = positiveInteger('maxBytes', options.maxBytes, 64 * 1024 * 1024);
  return {
    prefix,
    maxTasks: positiveInteger('maxTasks', options.maxTasks, 10_000),
    maxTasksPerOwner: positiveInteger('maxTasksPerOwner', options.maxTasksPerOwner, 100),
    maxBytes,
    maxTaskBytes: positiveInteger('maxTaskBytes', options.maxTaskBytes, maxBytes),
  };
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`RedisTaskStore: ${name} must be a positive integer`);
  return value;
}

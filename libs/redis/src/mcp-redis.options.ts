import type { Redis } from 'ioredis';
import type { RedisEventStoreOptions } from './events/redis-event.store';
import type { RedisSessionStoreOptions } from './sessions/redis-session.store';
import type { RedisTaskStoreOptions } from './tasks/redis-task.store';

/** Options of `McpRedisModule.forRoot`: where Redis is, and the prefix of every key this module writes. */
export interface McpRedisOptions {
  /** A Redis URL (`redis://host:port/db`, `rediss://` for TLS). Default `REDIS_URL`, else `redis://127.0.0.1:6379`. */
  url?: string;
  /**
   * A connection of your own (ioredis); it is not closed at shutdown. The module duplicates it for its subscriber
   * connection. Excludes `url`.
   */
  client?: Redis;
  /**
   * Prepended to every key and channel, so that several apps (or test runs) share one Redis without meeting. Every
   * instance of one server uses the same prefix. Default `mcp:`.
   */
  keyPrefix?: string;
  /** A command not answered within this fails (a store failure: legacy requests get 503). Default 2 000 ms. */
  commandTimeoutMs?: number;
  /** Connecting (and each reconnection attempt) gives up after this. Default 2 000 ms. */
  connectTimeoutMs?: number;
  /** Bounds of the session store (count, bytes, idle timeout, per principal). */
  sessions?: Omit<RedisSessionStoreOptions, 'prefix'>;
  /** Bounds of the event store of resumable streams (events and bytes per stream, session and in all; age). */
  events?: Omit<RedisEventStoreOptions, 'prefix'>;
  /** Bounds of the task store (count in all and per owner, bytes). */
  tasks?: Omit<RedisTaskStoreOptions, 'prefix'>;
}

/** The options with their defaults applied. */
export interface ResolvedMcpRedisOptions {
  url: string;
  client: Redis | undefined;
  keyPrefix: string;
  commandTimeoutMs: number;
  connectTimeoutMs: number;
  sessions: Omit<RedisSessionStoreOptions, 'prefix'> | undefined;
  events: Omit<RedisEventStoreOptions, 'prefix'> | undefined;
  tasks: Omit<RedisTaskStoreOptions, 'prefix'> | undefined;
}

const DEFAULT_URL = 'redis://127.0.0.1:6379';

/** Applies the defaults and refuses contradictory or malformed options with a message that names the option. */
export function resolveRedisOptions(options: McpRedisOptions = {}): ResolvedMcpRedisOptions {
  if (options.url !== undefined && options.client !== undefined)
    throw new Error('McpRedisModule: url and client exclude each other: keep one');
  const url = options.url ?? process.env.REDIS_URL ?? DEFAULT_URL;
  if (!options.client && !/^rediss?:\/\//.test(url))
    throw new Error(`McpRedisModule: url must start with redis:// or rediss:// (got "${url.slice(0, 40)}")`);
  const keyPrefix = options.keyPrefix ?? 'mcp:';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0 || keyPrefix.length > 200)
    throw new Error('McpRedisModule: keyPrefix must be a string of 1 to 200 characters');
  return {
    url,
    client: options.client,
    keyPrefix,
    commandTimeoutMs: positive('commandTimeoutMs', options.commandTimeoutMs, 2_000),
    connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs, 2_000),
    sessions: options.sessions,
    events: options.events,
    tasks: options.tasks,
  };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`McpRedisModule: ${name} must be a positive number`);
  return value;
}

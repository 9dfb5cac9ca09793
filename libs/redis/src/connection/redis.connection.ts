import { Logger } from '@nestjs/common';
import { Redis, RedisOptions } from 'ioredis';
import { ResolvedMcpRedisOptions } from '../mcp-redis.options';
import { RedisHealth, pingHealth } from './redis.health';

/**
 * The module's connections to Redis: one for commands (shared by every store), and subscriber connections made on
 * demand (a connection in subscriber mode runs no other command). Commands fail fast while Redis is unreachable (no
 * offline queue: a store failure is answered 503 at once, never held), each within `commandTimeoutMs`; ioredis
 * reconnects on its own, with a bounded back-off.
 */
export class RedisConnection {
  readonly client: Redis;
  readonly keyPrefix: string;
  private readonly owned: boolean;
  private readonly subscribers: Redis[] = [];
  private readonly logger = new Logger('McpRedis');
  private lastError: string | undefined;

  constructor(options: ResolvedMcpRedisOptions) {
    this.keyPrefix = options.keyPrefix;
    this.owned = !options.client;
    this.client = options.client ?? new Redis(options.url, connectionOptions(options));
    this.watch(this.client, 'commands');
  }

  /** A new connection for subscriptions (same server and settings), closed with this one. */
  subscriber(): Redis {
    const subscriber = this.client.duplicate({ enableOfflineQueue: true });
    this.subscribers.push(subscriber);
    this.watch(subscriber, 'subscriber');
    return subscriber;
  }

  /** Pings Redis (bounded by the command timeout); never throws. */
  health(): Promise<RedisHealth> {
    return pingHealth(this.client);
  }

  /** Closes the subscriber connections, and the command connection when this module made it. */
  async close(): Promise<void> {
    const closing = this.subscribers.splice(0).map((subscriber) => quit(subscriber));
    if (this.owned) closing.push(quit(this.client));
    await Promise.all(closing);
  }

  private watch(connection: Redis, role: string): void {
    // Without a listener an 'error' event would crash the process; each distinct failure is logged once.
    connection.on('error', (error: Error) => {
      if (error.message === this.lastError) return;
      this.lastError = error.message;
      this.logger.warn(`Redis ${role} connection: ${error.message}`);
    });
    connection.on('ready', () => {
      if (this.lastError === undefined) return;
      this.lastError = undefined;
      this.logger.log(`Redis ${role} connection ready again`);
    });
  }
}

function connectionOptions(options: ResolvedMcpRedisOptions): RedisOptions {
  return {
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: options.connectTimeoutMs,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // Reconnect forever, at most every 2 s: Redis coming back resumes service without a restart.
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 2_000),
  };
}

async function quit(connection: Redis): Promise<void> {
  if (connection.status === 'end') return;
  // Not connected: nothing to flush, and QUIT would wait for a connection that may never come.
  if (connection.status !== 'ready') return connection.disconnect();
  try {
    await connection.quit();
  } catch {
    connection.disconnect();
  }
}

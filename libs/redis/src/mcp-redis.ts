import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import type { EventStore, McpEventBus, McpTaskQueue, SessionStore, TaskStore } from '@conduit-mcp/server';
import type { RedisOptions } from 'ioredis';
import { RedisConnection } from './connection/redis.connection';
import { RedisHealth } from './connection/redis.health';
import { RedisEventBus } from './events/redis-event.bus';
import { RedisEventStore } from './events/redis-event.store';
import { MCP_REDIS_OPTIONS } from './mcp-redis.module-definition';
import { McpRedisOptions, ResolvedMcpRedisOptions, resolveRedisOptions } from './mcp-redis.options';
import { RedisSessionStore } from './sessions/redis-session.store';
import { RedisTaskStore } from './tasks/redis-task.store';
import { RedisTaskQueue } from './tasks/redis-task.queue';

/** The state options of `McpModule.forRoot` that {@link McpRedis.state} fills. */
export interface McpRedisState {
  sessionStore: SessionStore;
  eventStore: EventStore;
  eventBus: McpEventBus;
  taskStore: TaskStore;
  /** Where durable tools' tasks are queued for `McpTaskWorker` (a BullMQ queue per server). */
  taskQueue: McpTaskQueue;
}

/**
 * The Redis side of a scaled-out MCP server: one connection for commands and one for the bus's subscriptions, and
 * the stores and bus `McpModule` takes as options. Provided by `McpRedisModule`.
 *
 * @example
 * McpModule.forRootAsync({
 *   inject: [McpRedis],
 *   useFactory: (redis: McpRedis) => ({ name: 'notes', version: '1.0.0', ...redis.state('notes') }),
 * })
 */
@Injectable()
export class McpRedis implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly options: ResolvedMcpRedisOptions;
  private readonly connection: RedisConnection;
  private readonly logger = new Logger('McpRedis');
  private stores: Omit<McpRedisState, 'eventBus' | 'taskQueue'> | undefined;
  private readonly buses = new Map<string, RedisEventBus>();
  private readonly queues = new Map<string, RedisTaskQueue>();

  constructor(@Inject(MCP_REDIS_OPTIONS) options: McpRedisOptions) {
    this.options = resolveRedisOptions(options);
    this.connection = new RedisConnection(this.options);
  }

  /** The key prefix every key and channel of this module starts with. */
  get keyPrefix(): string {
    return this.options.keyPrefix;
  }

  /**
   * The stores and the bus for the server `name` (every instance of it uses the same name and key prefix), to spread
   * into `McpModule.forRoot` options. The stores are shared by every server of this app; the bus subscribes to the
   * channel of `name`.
   */
  state(name: string): McpRedisState {
    const prefix = this.options.keyPrefix;
    const redis = this.connection.client;
    this.stores ??= {
      sessionStore: new RedisSessionStore(redis, { prefix, ...this.options.sessions }),
      eventStore: new RedisEventStore(redis, { prefix, ...this.options.events }),
      taskStore: new RedisTaskStore(redis, { prefix, ...this.options.tasks }),
    };
    let eventBus = this.buses.get(name);
    if (!eventBus) {
      eventBus = new RedisEventBus(redis, this.connection.subscriber(), { prefix, servers: [name] });
      this.buses.set(name, eventBus);
    }
    let taskQueue = this.queues.get(name);
    if (!taskQueue) {
      taskQueue = new RedisTaskQueue(redis, { prefix, server: name });
      this.queues.set(name, taskQueue);
    }
    return { ...this.stores, eventBus, taskQueue };
  }

  /**
   * Options for a connection of one's own to this module's Redis that runs blocking commands (a BullMQ worker's, which
   * `McpTaskWorker` makes): the module's server and credentials, no retry limit, no command timeout.
   */
  workerConnectionOptions(): RedisOptions {
    return {
      ...this.connection.client.options,
      maxRetriesPerRequest: null,
      enableOfflineQueue: true,
      commandTimeout: undefined,
      lazyConnect: false,
      keyPrefix: undefined, // BullMQ prefixes its keys itself and refuses ioredis's prefix
    };
  }

  /** Whether Redis answers a ping (within the command timeout), with the connection's state. */
  health(): Promise<RedisHealth> {
    return this.connection.health();
  }

  /** Waits (within `connectTimeoutMs`) for the first connection; an app starts even when Redis is down. */
  async onModuleInit(): Promise<void> {
    const client = this.connection.client;
    if (client.status === 'ready') return;
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), this.options.connectTimeoutMs);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        client.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      client.on('ready', onReady);
    });
    if (!ready)
      this.logger.warn(
        'Redis is not reachable yet: the modern era serves, legacy sessions answer 503 until it is (reconnecting)',
      );
  }

  /**
   * Waits (within `connectTimeoutMs`) for the buses' subscriptions, so that an instance that starts serving also
   * hears what the others publish from then on; an app starts even when Redis is down (they subscribe once it is up).
   */
  async onApplicationBootstrap(): Promise<void> {
    await Promise.all(
      [...this.buses.values()].map((bus) =>
        bus.ready(this.options.connectTimeoutMs).catch((error: Error) => {
          this.logger.warn(`The event bus is not subscribed yet (${error.message}): it will be once Redis answers`);
        }),
      ),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.buses.values()].map((bus) => bus.close()));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await this.connection.close();
  }
}

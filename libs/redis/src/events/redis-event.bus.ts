import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { classifyMessage, isJsonObject, isJsonRpcId } from '@conduit-mcp/core';
import type { McpBusEvent, McpBusListener, McpEventBus } from '@conduit-mcp/server';
import type { Redis } from 'ioredis';
import { RedisHealth, pingHealth } from '../connection/redis.health';
import { messageOf, withTimeout } from '../connection/bounded.wait';

/** Options of a {@link RedisEventBus}. */
export interface RedisEventBusOptions {
  /** Prepended to every channel (the module's `keyPrefix`); every instance of one app uses the same one. */
  prefix: string;
  /**
   * The server names this instance serves: it subscribes to one sharded channel per server and hears no other
   * server's events. Default: one channel for every server under the prefix. Every instance of an app makes the same
   * choice (the two layouts do not hear each other).
   */
  servers?: string[];
  /** The largest event (serialized) sent or accepted, in bytes. Default 1 MiB. */
  maxEventBytes?: number;
}

const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;
/** Redis refuses larger bulk strings anyway (`proto-max-bulk-len`). */
const MAX_EVENT_BYTES_LIMIT = 512 * 1024 * 1024;
const MAX_SERVERS = 1_000;
const MAX_NAME_LENGTH = 200;
const DEFAULT_READY_TIMEOUT_MS = 5_000;
const CLOSE_TIMEOUT_MS = 2_000;

/** What travels on a channel: the event, and the bus object that sent it (so it skips its own). */
interface Envelope {
  from: string;
  event: McpBusEvent;
}

/** Why an incoming message was dropped; each kind is logged once per bus. */
type DropKind = 'oversize' | 'not-json' | 'not-envelope' | 'unknown-type' | 'bad-fields' | 'wrong-server';

const DROP_REASONS: Record<DropKind, string> = {
  oversize: 'larger than maxEventBytes',
  'not-json': 'not JSON',
  'not-envelope': 'not an event envelope ({ from, event })',
  'unknown-type': 'an event of an unknown type',
  'bad-fields': 'an event with missing or malformed fields',
  'wrong-server': "an event for another server than its channel's",
};

/**
 * An {@link McpEventBus} across the instances of an app, on Redis sharded pub/sub: each event is SPUBLISHed on its
 * server's channel (`<prefix>bus:<server>`, or `<prefix>bus` when `servers` is not given) and every instance
 * subscribed there hands it to its listeners.
 *
 * `publish()` first delivers to this instance's listeners, synchronously (a Redis outage never loses a notification
 * inside one instance), then publishes; it rejects when Redis does, when the event exceeds `maxEventBytes` or cannot be
 * carried, always after the local delivery, and logs why. Each listener gets an event once: this bus skips its own
 * messages coming back from Redis.
 *
 * Delivery to other instances is at most once: pub/sub keeps nothing, so events published while an instance's
 * subscriber connection is down are lost for that instance (ioredis re-subscribes once it reconnects, and delivery
 * resumes from there), as are events whose publishing failed. Incoming messages are checked (size, JSON, a known event
 * type with its fields); anything else is dropped and each kind of problem logged once. A listener that throws is
 * logged and does not stop the others.
 *
 * `subscriber` is a connection of this bus's own, used for nothing else (it enters subscriber mode); neither
 * connection is closed by {@link close}.
 *
 * @example
 * const bus = new RedisEventBus(redis, redis.duplicate(), { prefix: 'mcp:', servers: ['weather'] });
 * await bus.ready();
 * McpModule.forRoot({ name: 'weather', version: '1.0.0', eventBus: bus });
 */
export class RedisEventBus implements McpEventBus {
  /** This bus object's id, sent with each event it publishes. */
  readonly instanceId = randomUUID();
  private readonly prefix: string;
  private readonly perServer: boolean;
  private readonly channels: ReadonlySet<string>;
  private readonly maxEventBytes: number;
  private readonly listeners = new Set<McpBusListener>();
  private readonly logger = new Logger('RedisEventBus');
  private readonly loggedDrops = new Set<DropKind>();
  private lastPublishError: string | undefined;
  private lastSubscribeError: string | undefined;
  private subscription: Promise<void> | undefined;
  private wanted = false;
  private closed = false;

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    options: RedisEventBusOptions,
  ) {
    if (!publisher || !subscriber) throw new Error('RedisEventBus: a publisher and a subscriber connection are needed');
    if (publisher === subscriber)
      throw new Error('RedisEventBus: the subscriber must be a connection of its own (publisher.duplicate())');
    const { prefix, servers, maxEventBytes } = checkOptions(options);
    this.prefix = prefix;
    this.perServer = servers !== undefined;
    this.channels = new Set(servers ? servers.map((server) => `${prefix}bus:${server}`) : [`${prefix}bus`]);
    this.maxEventBytes = maxEventBytes;
    subscriber.on('smessageBuffer', this.onMessage);
    subscriber.on('ready', this.onSubscriberReady);
  }

  /**
   * Delivers `event` to this instance's listeners, then publishes it for the other instances. Rejects (after the local
   * delivery) when Redis fails, when the event is larger than `maxEventBytes` or is not a well-formed event; a closed
   * bus rejects without delivering.
   */
  async publish(event: McpBusEvent): Promise<void> {
    if (this.closed) throw new Error('RedisEventBus: closed, it publishes nothing');
    this.deliver(event);
    const payload = this.encode(event);
    try {
      await this.publisher.spublish(this.channelOf(event.server), payload);
    } catch (error) {
      const reason = messageOf(error);
      if (reason !== this.lastPublishError) {
        this.lastPublishError = reason;
        this.logger.warn(`Publishing on Redis failed (other instances miss these events): ${reason}`);
      }
      throw new Error(`RedisEventBus: publishing a ${event.type} event failed: ${reason}`, { cause: error });
    }
    if (this.lastPublishError !== undefined) {
      this.lastPublishError = undefined;
      this.logger.log('Publishing on Redis again');
    }
  }

  /** Subscribes to every event; the first subscription subscribes this bus on Redis. Returns the unsubscribe function. */
  subscribe(listener: McpBusListener): () => void {
    if (this.closed) throw new Error('RedisEventBus: closed, it takes no subscription');
    if (typeof listener !== 'function') throw new Error('RedisEventBus: a listener must be a function');
    // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
    const entry: McpBusListener = (event) => listener(event);
    this.listeners.add(entry);
    this.startSubscription();
    return () => this.listeners.delete(entry);
  }

  /**
   * Resolves once this bus is subscribed on Redis (subscribing now if nothing did yet), so that events published from
   * then on reach it; rejects when Redis refuses or after `timeoutMs`.
   */
  async ready(timeoutMs = DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new Error('RedisEventBus: ready() takes a positive timeout in milliseconds');
    if (this.closed) throw new Error('RedisEventBus: closed, it will not be ready');
    this.wanted = true;
    await withTimeout(this.ensureSubscribed(), timeoutMs, `RedisEventBus: not subscribed within ${timeoutMs} ms`);
  }

  /** Pings Redis over the publishing connection; never throws. */
  health(): Promise<RedisHealth> {
    return pingHealth(this.publisher);
  }

  /** Stops every delivery and unsubscribes from Redis (bounded); the connections stay open. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.subscriber.off('smessageBuffer', this.onMessage);
    this.subscriber.off('ready', this.onSubscriberReady);
    // Not connected: nothing to leave, and a queued command would only hold close() up.
    if (!this.subscription || this.subscriber.status !== 'ready') return;
    const leaving = this.subscriber.sunsubscribe(...this.channels).then(() => undefined);
    try {
      await withTimeout(leaving, CLOSE_TIMEOUT_MS, 'SUNSUBSCRIBE timed out');
    } catch (error) {
      this.logger.warn(`Unsubscribing from Redis failed: ${messageOf(error)}`);
    }
  }

  private deliver(event: McpBusEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error(`A listener failed on ${event.type}: ${messageOf(error)}`);
      }
    }
  }

  private encode(event: McpBusEvent): string {
    const checked = readEvent(event);
    if (typeof checked === 'string') throw this.notPublished(DROP_REASONS[checked]);
    let payload: string;
    try {
      payload = JSON.stringify({ from: this.instanceId, event } satisfies Envelope);
    } catch (error) {
      throw this.notPublished(`a ${event.type} event that cannot be serialized (${messageOf(error)})`, error);
    }
    const bytes = Buffer.byteLength(payload);
    if (bytes > this.maxEventBytes)
      throw this.notPublished(`a ${event.type} event of ${bytes} bytes, over maxEventBytes (${this.maxEventBytes})`);
    return payload;
  }

  // Callers publish fire-and-forget and rely on the bus to log, so each refusal is logged as well as thrown.
  private notPublished(problem: string, cause?: unknown): Error {
    this.logger.warn(`Not published, delivered on this instance only: ${problem}`);
    return new Error(`RedisEventBus: not published, delivered on this instance only: ${problem}`, { cause });
  }

  private channelOf(server: string): string {
    return this.perServer ? `${this.prefix}bus:${server}` : `${this.prefix}bus`;
  }

  private startSubscription(): void {
    this.wanted = true;
    this.ensureSubscribed().catch(() => undefined); // logged in ensureSubscribed; retried when the connection is ready
  }

  private ensureSubscribed(): Promise<void> {
    this.subscription ??= this.subscribeChannels().then(
      () => {
        if (this.lastSubscribeError === undefined) return;
        this.lastSubscribeError = undefined;
        this.logger.log('Subscribed on Redis again');
      },
      (error: unknown) => {
        this.subscription = undefined;
        const reason = messageOf(error);
        if (reason !== this.lastSubscribeError) {
          this.lastSubscribeError = reason;
          this.logger.warn(`Subscribing on Redis failed (this instance misses other instances' events): ${reason}`);
        }
        throw new Error(`RedisEventBus: subscribing failed: ${reason}`, { cause: error });
      },
    );
    return this.subscription;
  }

  private async subscribeChannels(): Promise<void> {
    // One command per channel: in a cluster, shard channels of different slots cannot share an SSUBSCRIBE.
    await Promise.all([...this.channels].map((channel) => this.subscriber.ssubscribe(channel)));
  }

  // A subscription that failed (Redis was down) is tried again once the connection is back; one that succeeded is
  // restored by ioredis itself (autoResubscribe).
  private readonly onSubscriberReady = (): void => {
    if (this.wanted && !this.closed && !this.subscription) this.startSubscription();
  };

  // Never throws: it runs inside ioredis's reply parsing.
  private readonly onMessage = (channel: Buffer | string, message: Buffer | string): void => {
    try {
      const name = channel.toString();
      if (this.closed || !this.channels.has(name)) return; // another user's channel on a shared connection
      const envelope = this.decode(name, message);
      if (envelope && envelope.from !== this.instanceId) this.deliver(envelope.event);
    } catch (error) {
      this.logger.error(`An incoming event failed: ${messageOf(error)}`);
    }
  };

  private decode(channel: string, message: Buffer | string): Envelope | undefined {
    if (Buffer.byteLength(message) > this.maxEventBytes) return this.drop('oversize', channel);
    let value: unknown;
    try {
      value = JSON.parse(message.toString());
    } catch {
      return this.drop('not-json', channel);
    }
    if (!isJsonObject(value) || typeof value.from !== 'string' || !isJsonObject(value.event))
      return this.drop('not-envelope', channel);
    const event = readEvent(value.event);
    if (typeof event === 'string') return this.drop(event, channel);
    if (this.perServer && channel !== `${this.prefix}bus:${event.server}`) return this.drop('wrong-server', channel);
    return { from: value.from, event };
  }

  private drop(kind: DropKind, channel: string): undefined {
    if (this.loggedDrops.has(kind)) return undefined;
    this.loggedDrops.add(kind);
    this.logger.warn(`Dropped a message on ${channel}: ${DROP_REASONS[kind]} (further ones of this kind: not logged)`);
    return undefined;
  }
}

type EventOf<T extends McpBusEvent['type']> = Extract<McpBusEvent, { type: T }>;
type ListKind = EventOf<'list-changed'>['list'];
type Fields = Record<string, unknown>;

const LIST_KINDS: Record<ListKind, true> = { tools: true, resources: true, prompts: true };
type TaskStatus = EventOf<'task-status'>['status'];
const TASK_STATUSES: Record<TaskStatus, true> = {
  working: true,
  input_required: true,
  completed: true,
  failed: true,
  cancelled: true,
};

// One reader per event type, typed so that a new event type fails to compile until it has its reader. Each builds a
// fresh event of the known fields, or returns undefined when one is missing or malformed.
const READERS: { [T in McpBusEvent['type']]: (fields: Fields, server: string) => EventOf<T> | undefined } = {
  'list-changed': ({ list }, server) =>
    typeof list === 'string' && Object.hasOwn(LIST_KINDS, list)
      ? { type: 'list-changed', server, list: list as ListKind }
      : undefined,
  'resource-updated': ({ uri }, server) => (text(uri) ? { type: 'resource-updated', server, uri } : undefined),
  'session-message': ({ sessionId, message }, server) => {
    const classified = classifyMessage(message);
    if (!text(sessionId) || classified.kind === 'invalid') return undefined;
    return { type: 'session-message', server, sessionId, message: classified.message };
  },
  'client-response': ({ sessionId, response }, server) => {
    const classified = classifyMessage(response);
    if (!text(sessionId) || classified.kind !== 'response') return undefined;
    return { type: 'client-response', server, sessionId, response: classified.message };
  },
  cancelled: ({ sessionId, requestId, reason }, server) => {
    if (!text(sessionId) || !isJsonRpcId(requestId) || (reason !== undefined && typeof reason !== 'string'))
      return undefined;
    const event: EventOf<'cancelled'> = { type: 'cancelled', server, sessionId, requestId };
    return reason === undefined ? event : { ...event, reason };
  },
  'sessions-ended': ({ principal }, server) =>
    text(principal) ? { type: 'sessions-ended', server, principal } : undefined,
  'session-deleted': ({ sessionId }, server) =>
    text(sessionId) ? { type: 'session-deleted', server, sessionId } : undefined,
  'session-changed': ({ sessionId }, server) =>
    text(sessionId) ? { type: 'session-changed', server, sessionId } : undefined,
  'task-cancel': ({ taskId, owner }, server) =>
    text(taskId) && text(owner) ? { type: 'task-cancel', server, taskId, owner } : undefined,
  'task-answers': ({ taskId, owner, responses }, server) =>
    text(taskId) && text(owner) && isJsonObject(responses)
      ? { type: 'task-answers', server, taskId, owner, responses }
      : undefined,
  'task-status': ({ taskId, owner, status }, server) =>
    text(taskId) && text(owner) && typeof status === 'string' && Object.hasOwn(TASK_STATUSES, status)
      ? { type: 'task-status', server, taskId, owner, status: status as TaskStatus }
      : undefined,
};

/** The event `value` carries, rebuilt from its known fields, or why it is not one. Never throws. */
function readEvent(value: unknown): McpBusEvent | 'unknown-type' | 'bad-fields' {
  try {
    if (!isJsonObject(value)) return 'bad-fields';
    const { type, server } = value;
    if (typeof type !== 'string' || !Object.hasOwn(READERS, type)) return 'unknown-type';
    if (!text(server)) return 'bad-fields';
    return READERS[type as McpBusEvent['type']](value, server) ?? 'bad-fields';
  } catch {
    return 'bad-fields'; // a throwing getter on an object handed to publish()
  }
}

function text(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function checkOptions(options: RedisEventBusOptions): Required<Omit<RedisEventBusOptions, 'servers'>> & {
  servers: string[] | undefined;
} {
  if (!isJsonObject(options)) throw new Error('RedisEventBus: options { prefix, servers?, maxEventBytes? } are needed');
  const { prefix, servers, maxEventBytes = DEFAULT_MAX_EVENT_BYTES } = options;
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > MAX_NAME_LENGTH)
    throw new Error(`RedisEventBus: prefix must be a string of 1 to ${MAX_NAME_LENGTH} characters`);
  if (servers !== undefined) {
    if (!Array.isArray(servers) || servers.length === 0 || servers.length > MAX_SERVERS)
      throw new Error(`RedisEventBus: servers must be a list of 1 to ${MAX_SERVERS} server names (or left out)`);
    for (const server of servers) {
      if (typeof server !== 'string' || server.length === 0 || server.length > MAX_NAME_LENGTH)
        throw new Error(`RedisEventBus: each server name must be a string of 1 to ${MAX_NAME_LENGTH} characters`);
    }
    if (new Set(servers).size !== servers.length) throw new Error('RedisEventBus: servers names a server twice');
  }
  if (!Number.isSafeInteger(maxEventBytes) || maxEventBytes < 1 || maxEventBytes > MAX_EVENT_BYTES_LIMIT)
    throw new Error(`RedisEventBus: maxEventBytes must be an integer from 1 to ${MAX_EVENT_BYTES_LIMIT}`);
  return { prefix, servers: servers && [...servers], maxEventBytes };
}

import type { SessionCreation, SessionRecord, SessionRecordChanges, SessionStore } from '@conduit-mcp/server';
import type { Redis } from 'ioredis';
import { RedisHealth, pingHealth } from '../connection/redis.health';
import { decodeRecord, encodeChanges, encodeRecord, storableId } from './redis-session.fields';
import {
  RedisSessionStoreOptions,
  ResolvedRedisSessionStoreOptions,
  resolveSessionStoreOptions,
} from './redis-session.options';
import { SessionCommands, sessionCommands } from './redis-session.scripts';

export type { RedisSessionStoreOptions } from './redis-session.options';

/**
 * A {@link SessionStore} on Redis, shared by every instance of a server that uses the same prefix. Each record is a
 * hash `<prefix>session:<id>` (a field per property, JSON-encoded) whose TTL is the idle time, restarted by `update`
 * and `touch` (not by `get`, as in the in-memory store). Bounds hold across instances: creating, updating and
 * deleting are Lua scripts over a sorted set of records by expiry (`<prefix>sessions:index`), their sizes
 * (`<prefix>sessions:sizes`, so that an expired record's bytes are given back without its hash), a byte total
 * (`<prefix>sessions:bytes`) and a sorted set per principal (`<prefix>sessions:principal:<principal>`). Expiry uses
 * the Redis server's clock. A full store refuses; it never evicts a live record. Redis failures reject.
 *
 * @example
 * const store = new RedisSessionStore(redis, { prefix: 'mcp:', maxSessions: 50_000 });
 * McpModule.forRoot({ sessionStore: store });
 */
export class RedisSessionStore implements SessionStore {
  private readonly options: ResolvedRedisSessionStoreOptions;
  private readonly commands: SessionCommands;
  private readonly index: string;
  private readonly sizes: string;
  private readonly bytes: string;

  constructor(
    private readonly redis: Redis,
    options: RedisSessionStoreOptions,
  ) {
    if (typeof redis?.defineCommand !== 'function')
      throw new Error('RedisSessionStore: redis must be an ioredis client (new Redis(...))');
    this.options = resolveSessionStoreOptions(options);
    this.commands = sessionCommands(redis);
    const prefix = this.options.prefix;
    // 'sessions:' (plural) keeps these apart from every record key 'session:<id>', whatever the id.
    this.index = `${prefix}sessions:index`;
    this.sizes = `${prefix}sessions:sizes`;
    this.bytes = `${prefix}sessions:bytes`;
  }

  /** Creates the record; refused as 'full' at a bound (in all, per principal, bytes, or a record over maxRecordBytes). */
  async create(record: SessionRecord): Promise<SessionCreation> {
    const { pairs, bytes } = encodeRecord(record);
    const { maxRecordBytes, maxBytes, idleMs, maxSessions, maxSessionsPerPrincipal } = this.options;
    // Too big to keep: not sent to Redis, only asked whether the id is taken (an existing id is refused first).
    if (bytes > maxRecordBytes || bytes > maxBytes)
      return { ok: false, reason: (await this.redis.exists(this.recordKey(record.id))) ? 'exists' : 'full' };
    const principal = record.principal;
    const outcome = await this.commands.conduitSessionCreate(
      ...this.keys(record.id),
      record.id,
      bytes,
      idleMs,
      maxSessions,
      maxBytes,
      maxSessionsPerPrincipal,
      principal === undefined ? '0' : '1',
      principal ?? '',
      ...pairs,
    );
    if (outcome === 'ok') return { ok: true };
    if (outcome === 'exists' || outcome === 'full') return { ok: false, reason: outcome };
    throw new Error(`RedisSessionStore: unexpected answer to create: ${String(outcome)}`);
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    if (!storableId(id)) return undefined;
    return decodeRecord(id, await this.redis.hgetall(this.recordKey(id)));
  }

  /** Whether the record exists (one EXISTS: what a live copy checks on each request). */
  async exists(id: string): Promise<boolean> {
    if (!storableId(id)) return false;
    return (await this.redis.exists(this.recordKey(id))) === 1;
  }

  /** Applies the changes (a field changed to undefined is removed); false when absent, or past a byte bound. */
  async update(id: string, changes: SessionRecordChanges): Promise<boolean> {
    const { pairs, removed } = encodeChanges(changes);
    if (!storableId(id)) return false;
    const { idleMs, maxRecordBytes, maxBytes, maxSessionsPerPrincipal } = this.options;
    const updated = await this.commands.conduitSessionUpdate(
      ...this.keys(id),
      id,
      idleMs,
      maxRecordBytes,
      maxBytes,
      maxSessionsPerPrincipal,
      pairs.length,
      ...pairs,
      ...removed,
    );
    return updated === 1;
  }

  async touch(id: string): Promise<void> {
    if (!storableId(id)) return;
    await this.commands.conduitSessionTouch(...this.keys(id), id, this.options.idleMs);
  }

  async delete(id: string): Promise<boolean> {
    if (!storableId(id)) return false;
    return (await this.commands.conduitSessionDelete(...this.keys(id), id)) === 1;
  }

  /** The live records (expired ones are not counted, even before they are purged). */
  async count(): Promise<number> {
    return this.commands.conduitSessionCount(this.index, this.sizes, this.bytes);
  }

  /** Pings Redis over the store's connection; never throws. */
  health(): Promise<RedisHealth> {
    return pingHealth(this.redis);
  }

  private recordKey(id: string): string {
    return `${this.options.prefix}session:${id}`;
  }

  private keys(id: string): [index: string, sizes: string, bytes: string, hash: string] {
    return [this.index, this.sizes, this.bytes, this.recordKey(id)];
  }
}

import type { Redis } from 'ioredis';

/** What `health()` of a Redis-backed store, bus or connection reports. */
export interface RedisHealth {
  up: boolean;
  /** The connection's state (`ready`, `connecting`, `reconnecting`, `end`…). */
  status: string;
  /** The ping's round trip, when one answered. */
  latencyMs?: number;
}

const LOST = new Set(['reconnecting', 'close', 'end']);

/** Pings Redis over `redis` (bounded by its command timeout); never throws. */
export async function pingHealth(redis: Redis): Promise<RedisHealth> {
  // Lost: down, without a command (which would only fail, and leave ioredis's command timer running).
  if (LOST.has(redis.status)) return { up: false, status: redis.status };
  const started = performance.now();
  try {
    await redis.ping();
    return { up: true, status: redis.status, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch {
    return { up: false, status: redis.status };
  }
}

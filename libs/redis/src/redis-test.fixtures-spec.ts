// Test helpers shared by the Redis specs (the `-spec.ts` suffix keeps it out of the library build and out of jest's
// test list). Every spec runs against a real Redis: REDIS_URL, else the machine's 127.0.0.1:6379.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis the tests use. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix of its own for one test run (or one test), so runs never meet and clean-up deletes only theirs. */
export function testPrefix(label: string): string {
  return `conduit-test:${label}:${process.pid}:${randomUUID().slice(0, 8)}:`;
}

/** A command connection to the test Redis, failing fast (as the module's own connection does). */
export function testRedis(): Redis {
  return new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1, commandTimeout: 2_000, connectTimeout: 2_000 });
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** The keys under `prefix` (for tests that check what a store leaves behind). */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found.sort();
}

'use strict';
// The bench's own Redis connection (the scale-out section): check that Redis answers before starting servers on it,
// and delete the keys of the run's prefix afterwards. Uses the ioredis the repository installs for @conduit-mcp/redis.
const { Redis } = require('ioredis');

const DEFAULT_URL = 'redis://127.0.0.1:6379';
const SCAN_COUNT = 1_000;
// A prefix of the bench's own can hold many keys only through a bug: stop rather than loop.
const MAX_SCAN_ROUNDS = 10_000;

/** REDIS_URL, else the machine's Redis. */
const redisUrl = () => process.env.REDIS_URL || DEFAULT_URL;

/**
 * A command connection to `url` once it answered PING within `timeoutMs`; otherwise rejects with a message that
 * says which Redis the section needs.
 */
async function connectRedis(url = redisUrl(), timeoutMs = 2_000) {
  if (!/^rediss?:\/\//.test(url)) throw new Error(`REDIS_URL must start with redis:// or rediss:// (got "${url}")`);
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  // connect() rejects with "Connection is closed." only; the socket's own error says why (ECONNREFUSED, ...).
  let cause;
  redis.on('error', (error) => (cause = cause || error));
  try {
    await redis.connect();
    const pong = await redis.ping();
    if (pong !== 'PONG') throw new Error(`PING answered ${String(pong).slice(0, 40)}`);
    return redis;
  } catch (error) {
    redis.disconnect();
    const why = cause && cause.message !== error.message ? `${cause.message}; ${error.message}` : error.message;
    throw new Error(`Redis at ${url} is not reachable (${why}): the scale-out section needs one (REDIS_URL)`);
  }
}

/** Calls `fn(keys)` for every batch of keys under `prefix`. */
async function scanPrefix(redis, prefix, fn) {
  let cursor = '0';
  let rounds = 0;
  do {
    if (++rounds > MAX_SCAN_ROUNDS)
      throw new Error(`SCAN of ${prefix}* did not finish within ${MAX_SCAN_ROUNDS} rounds`);
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', SCAN_COUNT);
    if (keys.length) await fn(keys);
    cursor = next;
  } while (cursor !== '0');
}

/** Deletes every key under `prefix`; resolves how many there were. */
async function deleteKeys(redis, prefix) {
  let deleted = 0;
  await scanPrefix(redis, prefix, async (keys) => {
    deleted += keys.length;
    await redis.unlink(...keys);
  });
  return deleted;
}

/** How many keys there are under `prefix`. */
async function countKeys(redis, prefix) {
  let count = 0;
  await scanPrefix(redis, prefix, async (keys) => {
    count += keys.length;
  });
  return count;
}

module.exports = { redisUrl, connectRedis, deleteKeys, countKeys };

#!/usr/bin/env node
// Checks that the Redis the tests use answers (REDIS_URL, else redis://127.0.0.1:6379), with a clear message if
// not: the @conduit-mcp/redis specs and the scale-out scenarios run against a real Redis.
const { Redis } = require('ioredis');

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = new Redis(url, {
  lazyConnect: true,
  connectTimeout: 3_000,
  commandTimeout: 3_000,
  maxRetriesPerRequest: 0,
  retryStrategy: () => null,
});
let lastError;
redis.on('error', (error) => (lastError = error));

redis
  .connect()
  .then(() => redis.info('server'))
  .then((info) => {
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    const [major] = version.split('.').map(Number);
    if (!(major >= 7)) throw new Error(`Redis ${version} answers at ${url}; the tests need Redis 7 or later`);
    console.log(`Redis ${version} answers at ${url}`);
    return redis.quit();
  })
  .catch((error) => {
    console.error(
      `Redis does not answer at ${url} (${(lastError ?? error).message}).\n` +
        'The tests need a Redis 7 server: start one (e.g. `docker run -p 127.0.0.1:6379:6379 redis:7` or ' +
        '`redis-server --port 6379 --save ""`), or set REDIS_URL to one.',
    );
    redis.disconnect();
    process.exit(1);
  });

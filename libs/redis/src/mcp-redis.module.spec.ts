import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { McpRedis } from './mcp-redis';
import { McpRedisModule } from './mcp-redis.module';
import { resolveRedisOptions } from './mcp-redis.options';
import { RedisEventBus } from './events/redis-event.bus';
import { RedisEventStore } from './events/redis-event.store';
import { RedisSessionStore } from './sessions/redis-session.store';
import { RedisTaskStore } from './tasks/redis-task.store';
import { TEST_REDIS_URL, deleteKeys, testPrefix, testRedis } from './redis-test.fixtures-spec';

describe('resolveRedisOptions', () => {
  it('applies the defaults', () => {
    const saved = process.env.REDIS_URL;
    delete process.env.REDIS_URL;
    try {
      expect(resolveRedisOptions()).toMatchObject({
        url: 'redis://127.0.0.1:6379',
        keyPrefix: 'mcp:',
        commandTimeoutMs: 2_000,
        connectTimeoutMs: 2_000,
      });
    } finally {
      if (saved !== undefined) process.env.REDIS_URL = saved;
    }
  });

  it.each([
    [{ url: 'redis://127.0.0.1:6379', client: {} as Redis }, 'url and client exclude each other'],
    [{ url: 'http://127.0.0.1:6379' }, 'url must start with redis:// or rediss://'],
    [{ keyPrefix: '' }, 'keyPrefix must be a string of 1 to 200 characters'],
    [{ keyPrefix: 'x'.repeat(201) }, 'keyPrefix must be a string of 1 to 200 characters'],
    [{ commandTimeoutMs: 0 }, 'commandTimeoutMs must be a positive number'],
    [{ connectTimeoutMs: Number.NaN }, 'connectTimeoutMs must be a positive number'],
  ])('refuses %j', (options, message) => {
    expect(() => resolveRedisOptions(options)).toThrow(message);
  });
});

describe('McpRedisModule', () => {
  const prefix = testPrefix('module');
  const redis = testRedis();

  afterAll(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('forRoot provides McpRedis: the stores shared by every server, a bus per server name', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpRedisModule.forRoot({ url: TEST_REDIS_URL, keyPrefix: prefix })],
    }).compile();
    await moduleRef.init();
    try {
      const mcpRedis = moduleRef.get(McpRedis);
      expect(mcpRedis.keyPrefix).toBe(prefix);
      const notes = mcpRedis.state('notes');
      expect(notes.sessionStore).toBeInstanceOf(RedisSessionStore);
      expect(notes.eventStore).toBeInstanceOf(RedisEventStore);
      expect(notes.taskStore).toBeInstanceOf(RedisTaskStore);
      expect(notes.eventBus).toBeInstanceOf(RedisEventBus);
      const again = mcpRedis.state('notes');
      const other = mcpRedis.state('billing');
      expect(again.eventBus).toBe(notes.eventBus);
      expect(other.eventBus).not.toBe(notes.eventBus);
      expect(other.sessionStore).toBe(notes.sessionStore);
      expect(await mcpRedis.health()).toMatchObject({ up: true, status: 'ready' });
    } finally {
      await moduleRef.close();
    }
  });

  it('forRootAsync takes its options from a factory', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpRedisModule.forRootAsync({ useFactory: () => ({ url: TEST_REDIS_URL, keyPrefix: prefix }) })],
    }).compile();
    await moduleRef.init();
    try {
      expect(moduleRef.get(McpRedis).keyPrefix).toBe(prefix);
    } finally {
      await moduleRef.close();
    }
  });

  it('closes the connections it made at shutdown, and never a client it was given', async () => {
    const own = testRedis();
    const moduleRef = await Test.createTestingModule({
      imports: [McpRedisModule.forRoot({ client: own, keyPrefix: prefix })],
    }).compile();
    await moduleRef.init();
    moduleRef.get(McpRedis).state('notes');
    await moduleRef.close();
    expect(await own.ping()).toBe('PONG');
    await own.quit();

    const made = await Test.createTestingModule({
      imports: [McpRedisModule.forRoot({ url: TEST_REDIS_URL, keyPrefix: prefix })],
    }).compile();
    await made.init();
    const mcpRedis = made.get(McpRedis);
    await made.close();
    expect(await mcpRedis.health()).toMatchObject({ up: false });
  });

  it('starts when Redis does not answer, and reports it down', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpRedisModule.forRoot({ url: 'redis://127.0.0.1:1', keyPrefix: prefix, connectTimeoutMs: 300 })],
    })
      .setLogger({ log() {}, warn() {}, error() {} })
      .compile();
    const started = Date.now();
    await moduleRef.init();
    expect(Date.now() - started).toBeLessThan(2_000);
    try {
      expect(await moduleRef.get(McpRedis).health()).toMatchObject({ up: false });
    } finally {
      await moduleRef.close();
    }
  });
});

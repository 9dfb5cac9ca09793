import { DynamicModule } from '@nestjs/common';
import { McpModule, McpModuleOptions } from '@conduit-mcp/server';
import type { McpRedis } from '@conduit-mcp/redis';

/** The fixture's server: its name is also the Redis bus channel every instance of it shares. */
const FIXTURE_SERVER = {
  name: 'conduit-conformance',
  title: 'Conduit conformance fixture',
  version: '0.1.0',
  http: { path: '/mcp' },
} satisfies McpModuleOptions;

const DEFAULT_KEY_PREFIX = 'conduit-conformance:';
const MAX_KEY_PREFIX_CHARS = 200;
const MIN_SECRET_BYTES = 16;
const MAX_SECRET_BYTES = 4096;

/** Where the fixture keeps its state, read from the environment by {@link fixtureStateSettings}. */
export interface FixtureStateSettings {
  /** `CONFORMANCE_REDIS_URL`: sessions, event store, bus and tasks in Redis; in memory when absent. */
  redisUrl?: string;
  /** `CONFORMANCE_KEY_PREFIX`: every instance behind one endpoint uses the same one. */
  keyPrefix: string;
  /** `CONFORMANCE_STATE_SECRET`: seals `requestState` and list cursors the same way on every instance. */
  stateSecret?: string;
}

/**
 * Reads and checks the fixture's state settings; a malformed variable stops the fixture with a message naming it.
 * Unset variables leave the fixture as it always was: in-memory state, a random sealing key.
 */
export function fixtureStateSettings(env: NodeJS.ProcessEnv = process.env): FixtureStateSettings {
  const redisUrl = env.CONFORMANCE_REDIS_URL || undefined;
  const prefix = env.CONFORMANCE_KEY_PREFIX || undefined;
  const stateSecret = env.CONFORMANCE_STATE_SECRET || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\/\S+$/.test(redisUrl))
    throw new Error(`CONFORMANCE_REDIS_URL must be a redis:// or rediss:// URL (got "${redisUrl.slice(0, 40)}")`);
  if (prefix !== undefined && redisUrl === undefined)
    throw new Error('CONFORMANCE_KEY_PREFIX is set but CONFORMANCE_REDIS_URL is not: the prefix only names Redis keys');
  if (prefix !== undefined && (prefix.length > MAX_KEY_PREFIX_CHARS || /[\s*?[\]]/.test(prefix)))
    throw new Error(
      `CONFORMANCE_KEY_PREFIX must be at most ${MAX_KEY_PREFIX_CHARS} characters without spaces or glob characters`,
    );
  if (stateSecret !== undefined) {
    const bytes = Buffer.byteLength(stateSecret);
    if (bytes < MIN_SECRET_BYTES || bytes > MAX_SECRET_BYTES)
      throw new Error(
        `CONFORMANCE_STATE_SECRET must be ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes (got ${bytes})`,
      );
  }
  return { redisUrl, keyPrefix: prefix ?? DEFAULT_KEY_PREFIX, stateSecret };
}

/**
 * The modules that give the fixture its MCP server: in memory by default, or on Redis (`@conduit-mcp/redis`) when
 * `CONFORMANCE_REDIS_URL` is set, so that several fixture processes behind a load balancer serve as one.
 */
export function fixtureMcpImports(settings: FixtureStateSettings = fixtureStateSettings()): DynamicModule[] {
  const options: McpModuleOptions = settings.stateSecret
    ? { ...FIXTURE_SERVER, requestState: { secret: settings.stateSecret } }
    : FIXTURE_SERVER;
  if (settings.redisUrl === undefined) return [McpModule.forRoot(options)];
  const redis = loadRedisLib();
  return [
    redis.McpRedisModule.forRoot({ url: settings.redisUrl, keyPrefix: settings.keyPrefix }),
    McpModule.forRootAsync({
      inject: [redis.McpRedis],
      useFactory: (state: McpRedis) => ({ ...options, ...state.state(FIXTURE_SERVER.name) }),
    }),
  ];
}

// Loaded only when asked for: the in-memory fixture never loads ioredis nor needs the redis lib built (the app build
// of scripts/app-build.js builds core, server and client only).
function loadRedisLib(): typeof import('@conduit-mcp/redis') {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@conduit-mcp/redis') as typeof import('@conduit-mcp/redis');
  } catch (error) {
    throw new Error(
      `CONFORMANCE_REDIS_URL is set but @conduit-mcp/redis does not load (${(error as Error).message}): ` +
        'build it with `npm run build:libs`',
      { cause: error },
    );
  }
}

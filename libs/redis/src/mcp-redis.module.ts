import { Module } from '@nestjs/common';
import { ConfigurableModuleClass } from './mcp-redis.module-definition';
import { McpRedis } from './mcp-redis';
import { McpTaskWorker } from './tasks/mcp-task.worker';

/**
 * Shared state for running several instances of an MCP server on Redis: sessions, resumable SSE streams, the event
 * bus between instances, and tasks. Import it once (it is global) and hand `McpRedis.state(name)` to `McpModule`.
 *
 * @example
 * imports: [
 *   McpRedisModule.forRoot({ url: process.env.REDIS_URL, keyPrefix: 'notes:' }),
 *   McpModule.forRootAsync({
 *     inject: [McpRedis],
 *     useFactory: (redis: McpRedis) => ({ name: 'notes', version: '1.0.0', ...redis.state('notes') }),
 *   }),
 * ]
 */
@Module({ providers: [McpRedis, McpTaskWorker], exports: [McpRedis, McpTaskWorker] })
export class McpRedisModule extends ConfigurableModuleClass {}

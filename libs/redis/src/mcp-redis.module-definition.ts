import { ConfigurableModuleBuilder } from '@nestjs/common';
import { McpRedisOptions } from './mcp-redis.options';

export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_REDIS_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpRedisOptions>()
  .setClassMethodName('forRoot')
  // Global, so that McpModule.forRootAsync can inject McpRedis without importing this module again.
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

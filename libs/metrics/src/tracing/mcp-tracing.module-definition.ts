import { ConfigurableModuleBuilder } from '@nestjs/common';
import { McpTracingOptions } from './mcp-tracing.options';

export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_TRACING_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpTracingOptions>()
  .setClassMethodName('forRoot')
  // Global, as a module imported once at the root: the spans are process-wide anyway.
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

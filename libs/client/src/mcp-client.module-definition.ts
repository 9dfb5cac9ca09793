import { ConfigurableModuleBuilder } from '@nestjs/common';
import { McpClientModuleOptions } from './interfaces/mcp-client-options.interface';

export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_CLIENT_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpClientModuleOptions>().setClassMethodName('forRoot').build();

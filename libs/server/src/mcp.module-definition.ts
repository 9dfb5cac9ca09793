import { ConfigurableModuleBuilder } from '@nestjs/common';
import { McpModuleOptions } from './interfaces/mcp-module-options.interface';

export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpModuleOptions>()
  .setClassMethodName('forRoot')
  // Global by default, so that McpServer (and @InjectMcpServer(name)) can be injected in any feature module, as
  // Nest users expect of a module imported once at the root; `isGlobal: false` scopes it to the importing module.
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

import { Inject, Injectable } from '@nestjs/common';
import { TASKS_EXTENSION_ID } from '@conduit-mcp/core';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpRegistry } from '../registry/mcp.registry';
import { supportedRevisions } from '../server-info';
import { cacheFields } from './cache-hint';

/** `server/discover` (modern era): supported revisions, capabilities, instructions; server info rides in `_meta`. */
@Injectable()
export class DiscoverMethods {
  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly registry: McpRegistry,
  ) {}

  async discover(): Promise<Record<string, unknown>> {
    const capabilities = this.registry.capabilities();
    const result: Record<string, unknown> = {
      supportedVersions: supportedRevisions(this.options),
      // The tasks extension is the modern era's: never a `tasks` capability here.
      capabilities: this.registry.servesTasks
        ? { ...capabilities, extensions: { ...capabilities.extensions, [TASKS_EXTENSION_ID]: {} } }
        : capabilities,
      ...cacheFields([], this.options.cache),
    };
    if (this.options.instructions) result.instructions = this.options.instructions;
    return result;
  }
}

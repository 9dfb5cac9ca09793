import { Inject, Injectable } from '@nestjs/common';
import { GetPromptResult, invalidParams } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { toMcpError } from '../dispatch/error.mapper';
import { McpParams } from '../dispatch/mcp-route.interface';
import { toGetPromptResult } from './result.normalizer';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpRegistry } from '../registry/mcp.registry';
import { McpTelemetry } from '../telemetry/mcp.telemetry';
import { echo, optionalObject, requireString } from './params';
import { ListPages } from './list-page';
import { McpScopePolicy } from '../auth/scope.policy';

/** `prompts/list` and `prompts/get`. */
@Injectable()
export class PromptMethods {
  private readonly pages: ListPages;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly registry: McpRegistry,
    private readonly telemetry: McpTelemetry,
    private readonly scopes: McpScopePolicy,
  ) {
    this.pages = new ListPages('prompts', options, scopes);
  }

  async list(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    return this.pages.page(this.registry.listPrompts(), this.registry.revision, ctx, params.cursor);
  }

  async get(params: McpParams, ctx: McpRequestContext): Promise<GetPromptResult> {
    const name = requireString(params, 'name');
    const prompt = this.registry.prompt(name);
    if (!prompt) {
      const shown = echo(name);
      throw this.telemetry.unknown(
        'prompt',
        { server: this.options.name, name: shown },
        ctx,
        invalidParams(`Unknown prompt: ${shown}`),
      );
    }
    this.scopes.check(prompt.scopes, ctx);
    const args = optionalObject(params, 'arguments');
    for (const [key, value] of Object.entries(args)) {
      if (typeof value !== 'string') throw invalidParams(`Prompt argument "${echo(key)}" must be a string`);
    }
    const missing = (prompt.definition.arguments ?? []).filter((arg) => arg.required && args[arg.name] === undefined);
    if (missing.length) throw invalidParams(`Missing required arguments: ${missing.map((arg) => arg.name).join(', ')}`);
    ctx.target = { kind: 'prompt', name };
    return this.telemetry.track('prompt', { server: this.options.name, name }, ctx, async () => {
      try {
        return toGetPromptResult(await prompt.invoke(args, ctx), prompt.definition.description);
      } catch (error) {
        throw toMcpError(error);
      }
    });
  }
}

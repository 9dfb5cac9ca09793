import { Inject, Injectable, Logger } from '@nestjs/common';
import { CallToolResult, ErrorCode, McpError, SchemaValidator, invalidParams, sanitizeText } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { toMcpError } from '../dispatch/error.mapper';
import { McpParams } from '../dispatch/mcp-route.interface';
import { toCallToolResult } from './result.normalizer';
import { McpToolError } from '../errors/mcp-tool.error';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpRegistry } from '../registry/mcp.registry';
import { RegisteredTool } from '../registry/registry.types';
import { McpTelemetry } from '../telemetry/mcp.telemetry';
import { echo, optionalObject, requireString } from './params';
import { ListPages } from './list-page';

/** `tools/list` and `tools/call`. */
@Injectable()
export class ToolMethods {
  private readonly logger = new Logger('McpTools');

  private readonly pages: ListPages;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly registry: McpRegistry,
    private readonly schemas: SchemaValidator,
    private readonly telemetry: McpTelemetry,
  ) {
    this.pages = new ListPages('tools', options);
  }

  async list(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    return this.pages.page(this.registry.listTools(), this.registry.revision, ctx, params.cursor);
  }

  async call(params: McpParams, ctx: McpRequestContext): Promise<CallToolResult> {
    const name = requireString(params, 'name');
    const tool = this.registry.tool(name);
    if (!tool) throw invalidParams(`Unknown tool: ${echo(name)}`);
    ctx.target = { kind: 'tool', name };
    const args = optionalObject(params, 'arguments');
    return this.telemetry.track(
      'tool',
      { server: this.options.name, name },
      ctx,
      () => this.run(tool, args, ctx),
      (result) => (result.isError ? 'tool_error' : 'ok'),
    );
  }

  private async run(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    ctx: McpRequestContext,
  ): Promise<CallToolResult> {
    const checked = tool.input.check(args);
    const input = checked instanceof Promise ? await checked : checked;
    if (!input.ok) return toolError(`Invalid arguments for tool ${tool.definition.name}: ${input.problems.join('; ')}`);
    let result: CallToolResult;
    try {
      result = toCallToolResult(await tool.invoke(input.value, ctx));
    } catch (error) {
      if (error instanceof McpToolError)
        return { content: error.content ?? [{ type: 'text', text: error.message }], isError: true };
      throw toMcpError(error);
    }
    if (tool.outputSchema && !result.isError) this.checkOutput(tool, result);
    return result;
  }

  private checkOutput(tool: RegisteredTool, result: CallToolResult): void {
    const checked = result.structuredContent
      ? this.schemas.validate(tool.outputSchema!, result.structuredContent)
      : { valid: false as const, errors: ['structuredContent is missing'] };
    if (!checked.valid) {
      this.logger.error(
        `${tool.source} returned output that does not match its output schema: ${checked.errors.join('; ')}`,
      );
      throw new McpError(ErrorCode.InternalError, 'Tool output does not match its output schema');
    }
  }
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text: sanitizeText(text, 2048) }], isError: true };
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { CallToolResult, ErrorCode, McpError, SchemaValidator, invalidParams } from '@conduit-mcp/core';
import { McpRequestContext } from '../context/mcp-request-context';
import { httpErrorMessage, isClientHttpError, toMcpError } from '../dispatch/error.mapper';
import { McpParams } from '../dispatch/mcp-route.interface';
import { toCallToolResult } from './result.normalizer';
import { McpToolError } from '../errors/mcp-tool.error';
import { McpScopePolicy } from '../auth/scope.policy';
import { guardsPassed } from '../invocation/guard-passage';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpRegistry } from '../registry/mcp.registry';
import { ALWAYS_ALLOWED, RegisteredTool } from '../registry/registry.types';
import { McpTelemetry } from '../telemetry/mcp.telemetry';
import { echo, optionalObject, requireString } from './params';
import { ListPages } from './list-page';
import { ToolInvoke, ToolTasks } from './tool-tasks';
import { LegacyToolTasks } from './legacy-tool-tasks';
import { TOOL_ERROR_CHARS, checkArguments } from './tool-arguments';

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
    private readonly tasks: ToolTasks,
    private readonly legacyTasks: LegacyToolTasks,
    private readonly scopes: McpScopePolicy,
  ) {
    this.pages = new ListPages('tools', options, scopes);
  }

  async list(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    return this.pages.page(this.registry.listTools(), this.registry.revision, ctx, params.cursor);
  }

  async call(params: McpParams, ctx: McpRequestContext): Promise<CallToolResult> {
    const name = requireString(params, 'name');
    const tool = this.registry.tool(name);
    if (!tool) {
      const shown = echo(name);
      throw this.telemetry.unknown(
        'tool',
        { server: this.options.name, name: shown },
        ctx,
        invalidParams(`Unknown tool: ${shown}`),
      );
    }
    ctx.target = { kind: 'tool', name };
    // Before the arguments and before a task exists: a refused call leaves nothing behind.
    this.scopes.check(tool.scopes, ctx);
    const args = optionalObject(params, 'arguments');
    const asTask =
      ctx.era === 'modern'
        ? tool.task !== 'forbidden' && (await this.tasks.call(tool, args, ctx, this.invoker(tool)))
        : (params.task !== undefined || tool.task === 'required') &&
          (await this.legacyTasks.call(tool, args, params.task, ctx, this.invoker(tool)));
    if (asTask) return asTask as unknown as CallToolResult;
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
    const checked = await checkArguments(tool, args);
    return checked.ok ? this.invoke(tool, checked.value, ctx) : checked.error;
  }

  /**
   * Runs `tool`'s handler, in a context it is given, on arguments already checked: through the Nest pipeline (guards,
   * interceptors, pipes, filters) with the answer a call gets — a tool error as a result, a protocol error thrown, the
   * output checked. The task paths run their handlers through it, here and in a worker (`McpTaskExecutor`).
   */
  invoker(tool: RegisteredTool): ToolInvoke {
    return (checked, taskCtx) => this.invoke(tool, checked, taskCtx);
  }

  /** Runs the tool's handler on arguments already checked; a tool error is a result, a protocol error is thrown. */
  private async invoke(tool: RegisteredTool, args: unknown, ctx: McpRequestContext): Promise<CallToolResult> {
    let result: CallToolResult;
    try {
      result = toCallToolResult(await tool.invoke(args, ctx));
    } catch (error) {
      const failure = error instanceof McpToolError ? error : this.httpToolError(tool, error, ctx);
      if (failure) return { content: failure.content ?? [{ type: 'text', text: failure.message }], isError: true };
      throw toMcpError(error);
    }
    if (tool.outputSchema && !result.isError) this.checkOutput(tool, result);
    return result;
  }

  /**
   * A 4xx `HttpException` thrown once the guards had let the call through (by the method, a pipe or an interceptor),
   * as the `McpToolError` the model reads; undefined for anything else. A guard's refusal (thrown before the
   * pipeline marked the guards passed) stays a protocol error.
   */
  private httpToolError(tool: RegisteredTool, error: unknown, ctx: McpRequestContext): McpToolError | undefined {
    if (!isClientHttpError(error)) return undefined;
    if (tool.canActivate !== ALWAYS_ALLOWED && !guardsPassed(ctx)) return undefined;
    return new McpToolError(httpErrorMessage(error, TOOL_ERROR_CHARS));
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

import { ExecutionContext } from '@nestjs/common';
import { MCP_CONTEXT_TYPE } from '../mcp.constants';
import { McpRequestContext } from './mcp-request-context';

/**
 * Reads MCP handler arguments in guards, interceptors and filters:
 * `McpExecutionContext.create(context).getContext()`. Check `context.getType() === 'mcp'` first.
 */
export class McpExecutionContext {
  private constructor(private readonly context: ExecutionContext) {}

  static create(context: ExecutionContext): McpExecutionContext {
    if (context.getType<string>() !== MCP_CONTEXT_TYPE) throw new Error('Not an MCP execution context');
    return new McpExecutionContext(context);
  }

  /** The validated tool input, prompt arguments or template variables (undefined when a list is filtered). */
  getArgs<T = unknown>(): T {
    return this.context.getArgByIndex<T>(0);
  }

  getContext(): McpRequestContext {
    return this.context.getArgByIndex<McpRequestContext>(1);
  }
}

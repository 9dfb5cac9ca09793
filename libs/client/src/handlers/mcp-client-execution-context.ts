import { ExecutionContext } from '@nestjs/common';
import { McpClientNotificationContext, McpInputContext } from '../connection/input-responder.interface';
import { MCP_CLIENT_CONTEXT_TYPE } from '../mcp-client.constants';

/**
 * Reads a client handler's arguments in guards, interceptors and filters. Every client handler is called
 * `(params, ctx)`: the question's or notification's params, and an `McpInputContext` (questions) or
 * `McpClientNotificationContext` (notifications and log entries).
 *
 * @example
 * ```ts
 * @Injectable()
 * export class OnlyTrustedServers implements CanActivate {
 *   canActivate(context: ExecutionContext): boolean {
 *     if (context.getType<string>() !== MCP_CLIENT_CONTEXT_TYPE) return true;
 *     return McpClientExecutionContext.create(context).getContext().serverId !== 'untrusted';
 *   }
 * }
 * ```
 */
export class McpClientExecutionContext {
  private constructor(private readonly context: ExecutionContext) {}

  /** Throws unless `context.getType() === 'mcp-client'`. */
  static create(context: ExecutionContext): McpClientExecutionContext {
    if (context.getType<string>() !== MCP_CLIENT_CONTEXT_TYPE) throw new Error('Not an MCP client execution context');
    return new McpClientExecutionContext(context);
  }

  /** The params of the question or notification (a log entry's sanitized params; `{}` for `roots/list`). */
  getParams<T = Record<string, unknown>>(): T {
    return this.context.getArgByIndex<T>(0);
  }

  getContext<T extends McpInputContext | McpClientNotificationContext = McpInputContext>(): T {
    return this.context.getArgByIndex<T>(1);
  }

  /** The question's or notification's method, e.g. `sampling/createMessage`. */
  getMethod(): string {
    return this.getContext<McpInputContext | McpClientNotificationContext>().method;
  }
}

import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { McpExecutionContext } from '../context/mcp-execution-context';
import { invocationOf } from '../context/mcp-request-context';
import { MCP_CONTEXT_TYPE, MCP_SCOPES_METADATA } from '../mcp.constants';

/**
 * `@McpScopes` as a Nest guard, for MCP handlers that are not listed entries (a completion handler, say): the
 * scopes declared on the handler and its class, checked by the server's own rule. Tools, resources, templates and
 * prompts need no guard: the server checks their `@McpScopes` itself, before anything runs, and hides them from
 * the lists of callers without the scopes. A refusal is 403 `insufficient_scope` naming every scope needed.
 *
 * @example
 * ```ts
 * @McpCompletion({ prompt: 'greet', argument: 'who' })
 * @McpScopes('people:read')
 * @UseGuards(McpScopesGuard)
 * who() {
 *   return ['ada', 'grace'];
 * }
 * ```
 */
@Injectable()
export class McpScopesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType<string>() !== MCP_CONTEXT_TYPE) return true;
    const required = this.reflector.getAllAndMerge<string[]>(MCP_SCOPES_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    const ctx = McpExecutionContext.create(context).getContext();
    const refusal = invocationOf(ctx).scopes.refusalOf(required, ctx);
    // An HttpException, as Nest expects of a guard's refusal (it logs anything else as a failure); the server
    // answers the McpError it carries.
    if (refusal) throw new ForbiddenException(refusal.message, { cause: refusal });
    return true;
  }
}

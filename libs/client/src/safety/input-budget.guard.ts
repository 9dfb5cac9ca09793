import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ErrorCode } from '@conduit-mcp/core';
import { McpInputContext, McpInputRefusal } from '../connection/input-responder.interface';
import { McpClientExecutionContext } from '../handlers/mcp-client-execution-context';
import { McpClientModuleOptions, McpRateLimit } from '../interfaces/mcp-client-options.interface';
import { MCP_CLIENT_OPTIONS } from '../mcp-client.module-definition';
import { DEFAULT_INPUT_RATE_LIMIT, McpInputBudgetStorage } from './input-budget.storage';
import { samplingOptions } from './sampling.check';

/**
 * The first check of every question (`@OnSampling`, `@OnElicitation`, `@OnRoots`): each server may ask at most
 * `inputRateLimit` questions (default 10 per second, bursts of 20), legacy requests and MRTR inputs alike. Over it,
 * sampling is refused with `sampling.rejectionCode` (default -1) and the other kinds with -32000, before any other
 * check or the handler runs. The token buckets live in the `McpInputBudgetStorage` provider.
 *
 * @example
 * ```ts
 * // A tighter budget for one server: subclass, override a hook, and name the subclass in the options.
 * @Injectable()
 * export class StrictBudget extends InputBudgetGuard {
 *   protected getLimit(ctx: McpInputContext): McpRateLimit {
 *     return ctx.serverId === 'untrusted' ? { rate: 1, burst: 2 } : super.getLimit(ctx);
 *   }
 * }
 * McpClientModule.forRoot({ name: 'app', servers, checks: { inputBudget: StrictBudget } });
 * ```
 */
@Injectable()
export class InputBudgetGuard implements CanActivate {
  constructor(
    @Inject(MCP_CLIENT_OPTIONS) protected readonly options: McpClientModuleOptions,
    @Inject(McpInputBudgetStorage) protected readonly storage: McpInputBudgetStorage,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const ctx = McpClientExecutionContext.create(context).getContext();
    if (await this.storage.take(this.getKey(ctx), this.getLimit(ctx))) return true;
    return this.refuse(ctx);
  }

  /** Whose budget a question spends: its server's. */
  protected getKey(ctx: McpInputContext): string {
    return ctx.serverId;
  }

  protected getLimit(_ctx: McpInputContext): McpRateLimit {
    return this.options.inputRateLimit ?? DEFAULT_INPUT_RATE_LIMIT;
  }

  /** Throws the refusal of a question over budget. */
  protected refuse(ctx: McpInputContext): never {
    const code =
      ctx.method === 'sampling/createMessage'
        ? samplingOptions(this.options.sampling).rejectionCode
        : ErrorCode.ServerError;
    throw new McpInputRefusal(code, 'Too many requests for input from this server');
  }
}

import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { McpInputContext } from '../connection/input-responder.interface';
import { McpClientExecutionContext } from '../handlers/mcp-client-execution-context';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { MCP_CLIENT_OPTIONS } from '../mcp-client.module-definition';
import { CheckError } from './checked';
import { SamplingOptions, checkSamplingRequest, samplingOptions } from './sampling.check';
import { orRefuse } from './refusal';

/**
 * Refuses a `sampling/createMessage` request before `@OnSampling` sees it: a malformed request (-32602: `messages`,
 * roles, `maxTokens` a positive integer, `includeContext`), a legacy request with no call of ours in flight unless
 * `sampling.allowIdle`, and a request already holding more than `sampling.maxToolIterations` (5) assistant `tool_use`
 * turns — those two with `sampling.rejectionCode` (-1).
 *
 * @example
 * ```ts
 * @Injectable()
 * export class NoSamplingForUntrusted extends SamplingRequestGuard {
 *   protected getOptions(ctx: McpInputContext): SamplingOptions {
 *     return ctx.serverId === 'untrusted' ? { ...super.getOptions(ctx), maxToolIterations: 0 } : super.getOptions(ctx);
 *   }
 * }
 * ```
 */
@Injectable()
export class SamplingRequestGuard implements CanActivate {
  constructor(@Inject(MCP_CLIENT_OPTIONS) protected readonly options: McpClientModuleOptions) {}

  canActivate(context: ExecutionContext): boolean {
    const client = McpClientExecutionContext.create(context);
    const ctx = client.getContext();
    const checked = checkSamplingRequest(client.getParams(), this.getOptions(ctx), {
      era: ctx.era,
      callsInFlight: ctx.callsInFlight,
    });
    if (!checked.ok) this.refuse(checked.error, ctx);
    return true;
  }

  /** The limits a request is checked against: the module's `sampling` options over the defaults. */
  protected getOptions(_ctx: McpInputContext): SamplingOptions {
    return samplingOptions(this.options.sampling);
  }

  /** Throws the refusal (a JSON-RPC error with the check's code). */
  protected refuse(error: CheckError, _ctx: McpInputContext): never {
    return orRefuse({ ok: false, error });
  }
}

import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { McpInputContext } from '../connection/input-responder.interface';
import { McpClientExecutionContext } from '../handlers/mcp-client-execution-context';
import { ON_ELICITATION_METADATA } from '../mcp-client.constants';
import { CheckError } from './checked';
import { ElicitationMode, checkElicitationRequest } from './elicitation.check';
import { orRefuse } from './refusal';

/**
 * Refuses an `elicitation/create` request before `@OnElicitation` sees it (-32602): a mode the handler does not
 * declare; in URL mode anything but an absolute `https` URL without credentials (the client never fetches or opens
 * it); in form mode a schema outside the specification's flat primitive subset.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class NoUrlFromUntrusted extends ElicitationRequestGuard {
 *   protected getModes(context: ExecutionContext, ctx: McpInputContext): ElicitationMode[] {
 *     return ctx.serverId === 'untrusted' ? ['form'] : super.getModes(context, ctx);
 *   }
 * }
 * ```
 */
@Injectable()
export class ElicitationRequestGuard implements CanActivate {
  constructor(@Inject(Reflector) protected readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const client = McpClientExecutionContext.create(context);
    const ctx = client.getContext();
    const checked = checkElicitationRequest(client.getParams(), this.getModes(context, ctx), ctx.origin, ctx.era);
    if (!checked.ok) this.refuse(checked.error, ctx);
    return true;
  }

  /** The modes a request may use: those the handler's `@OnElicitation({ modes })` declares. */
  protected getModes(context: ExecutionContext, _ctx: McpInputContext): ElicitationMode[] {
    return (
      this.reflector.get<{ modes?: ElicitationMode[] }>(ON_ELICITATION_METADATA, context.getHandler())?.modes ?? [
        'form',
      ]
    );
  }

  protected refuse(error: CheckError, _ctx: McpInputContext): never {
    return orRefuse({ ok: false, error });
  }
}

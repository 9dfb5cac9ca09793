import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { McpClientExecutionContext } from '../handlers/mcp-client-execution-context';
import { checkElicitationRequest } from './elicitation.check';
import { orRefuse } from './refusal';

/**
 * Tells `@OnElicitation` what the client knows of the request, in its context: the `mode`; in URL mode the normalized
 * `url` (also put in the params), its `host`, `idn` (a punycode `xn--` label, which may imitate another name) and
 * `originMismatch` (true unless the URL has the server's origin — `elicitation.origin` when configured, else the
 * transport's — and always true when that origin is unknown); in form mode the `fields`, each flagged
 * `sensitiveSuspected` when it looks like it asks for a secret.
 */
@Injectable()
export class ElicitationContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const client = McpClientExecutionContext.create(context);
    const ctx = client.getContext();
    const params = client.getParams();
    // The request guard has refused what does not pass; the modes were checked there.
    const checked = orRefuse(checkElicitationRequest(params, ['form', 'url'], ctx.origin, ctx.era));
    Object.assign(params, checked.params);
    Object.assign(ctx, checked.context);
    return next.handle();
  }
}

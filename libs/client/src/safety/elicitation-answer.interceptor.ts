import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, map } from 'rxjs';
import { ElicitRequestParams, ElicitResult, SchemaValidator } from '@conduit-mcp/core';
import { McpClientExecutionContext } from '../handlers/mcp-client-execution-context';
import { checkElicitationAnswer } from './elicitation.check';
import { orRefuse } from './refusal';

/**
 * Checks what `@OnElicitation` answered before it is sent (-32603 when it does not pass): the action is `accept`,
 * `decline` or `cancel`; a form `accept` fits the requested schema; a URL `accept` carries no content. Content on a
 * `decline` or `cancel` is dropped, so the person's answer still reaches the server.
 */
@Injectable()
export class ElicitationAnswerInterceptor implements NestInterceptor {
  private readonly schemas = new SchemaValidator();

  intercept(context: ExecutionContext, next: CallHandler): Observable<ElicitResult> {
    const request = McpClientExecutionContext.create(context).getParams<ElicitRequestParams>();
    return next.handle().pipe(map((answer: unknown) => this.check(request, answer)));
  }

  protected check(request: ElicitRequestParams, answer: unknown): ElicitResult {
    return orRefuse(checkElicitationAnswer(request, answer, this.schemas));
  }
}

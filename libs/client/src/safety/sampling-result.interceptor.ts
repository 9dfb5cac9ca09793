import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, map } from 'rxjs';
import { CreateMessageResult } from '@conduit-mcp/core';
import { checkSamplingResult } from './sampling.check';
import { orRefuse } from './refusal';

/**
 * Checks what `@OnSampling` answered before it is sent: a `role` (user or assistant), `content` and a `model` name,
 * else -32603.
 */
@Injectable()
export class SamplingResultInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<CreateMessageResult> {
    return next.handle().pipe(map((result: unknown) => this.check(result)));
  }

  protected check(result: unknown): CreateMessageResult {
    return orRefuse(checkSamplingResult(result));
  }
}

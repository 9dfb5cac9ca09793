import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, map } from 'rxjs';
import { ListRootsResult } from '@conduit-mcp/core';
import { filterRoots } from './roots.filter';
import { orRefuse } from './refusal';

/**
 * Sends a server only local roots: of what `@OnRoots` answered, `file://` URIs on this host, normalized (`.` and `..`
 * resolved, also percent-encoded) with sanitized names; anything else is dropped. An answer without a `roots` array
 * is -32603.
 */
@Injectable()
export class LocalRootsInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<ListRootsResult> {
    return next.handle().pipe(map((result: unknown) => this.filter(result)));
  }

  protected filter(result: unknown): ListRootsResult {
    return orRefuse(filterRoots(result));
  }
}

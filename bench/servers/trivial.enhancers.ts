// The guard and interceptor every Nest-based bench server puts on its tool: they do nothing, so the rows measure
// what running Nest's pipeline around a handler costs.
import { CallHandler, CanActivate, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';

@Injectable()
export class AllowGuard implements CanActivate {
  canActivate(_context: ExecutionContext): boolean {
    return true;
  }
}

@Injectable()
export class PassInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle();
  }
}

import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { McpExecutionContext } from '@conduit-mcp/server';
import { timingSafeEqual } from 'node:crypto';

/** Lets a call through when the HTTP request carries `X-Admin-Key: $DEMO_ADMIN_KEY` (default `demo-admin`). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly key = Buffer.from(process.env.DEMO_ADMIN_KEY ?? 'demo-admin');

  canActivate(context: ExecutionContext): boolean {
    if (context.getType<string>() !== 'mcp') return false;
    const header = McpExecutionContext.create(context).getContext().httpRequest?.headers['x-admin-key'];
    const given = Buffer.from(typeof header === 'string' ? header : '');
    return given.length === this.key.length && timingSafeEqual(given, this.key);
  }
}

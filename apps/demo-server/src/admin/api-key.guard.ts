import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { McpExecutionContext } from '@conduit-mcp/server';
import { timingSafeEqual } from 'node:crypto';

/**
 * Lets a call through when the HTTP request carries `X-Admin-Key: $DEMO_ADMIN_KEY` (default `demo-admin`), or when
 * the caller's access token grants the `admin` scope (`npm run start:oauth`).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly key = Buffer.from(process.env.DEMO_ADMIN_KEY ?? 'demo-admin');

  canActivate(context: ExecutionContext): boolean {
    if (context.getType<string>() !== 'mcp') return false;
    const ctx = McpExecutionContext.create(context).getContext();
    // Behind OAuth the token is the credential: its admin scope stands for the key.
    if (ctx.auth?.scopes.includes('admin')) return true;
    const header = ctx.httpRequest?.headers['x-admin-key'];
    const given = Buffer.from(typeof header === 'string' ? header : '');
    return given.length === this.key.length && timingSafeEqual(given, this.key);
  }
}

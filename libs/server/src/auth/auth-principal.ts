import type { McpAuthInfo } from './mcp-auth-info.interface';

/**
 * Who a request speaks for, as the key everything bound to a caller uses: sessions, `requestState`, tasks, the
 * per-caller session cap. The token's subject, else its client (`client:<id>`: a client-credentials token names no
 * user), else nobody — an unauthenticated request.
 */
export function principalOf(auth: McpAuthInfo | undefined): string | undefined {
  if (auth?.subject !== undefined) return auth.subject;
  if (auth?.clientId !== undefined) return `client:${auth.clientId}`;
  return undefined;
}

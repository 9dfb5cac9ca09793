import { McpRequestContext } from '../context/mcp-request-context';

/** The entries whose guards let this caller in, in order (guards run concurrently). */
export async function visible<T extends { canActivate: (ctx: McpRequestContext) => Promise<boolean> }>(
  entries: T[],
  ctx: McpRequestContext,
): Promise<T[]> {
  const allowed = await Promise.all(entries.map((entry) => entry.canActivate(ctx)));
  return entries.filter((_, index) => allowed[index]);
}

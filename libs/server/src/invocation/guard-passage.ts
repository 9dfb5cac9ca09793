import { McpInvocation } from '../context/mcp-invocation';
import { McpRequestContext, invocationOf } from '../context/mcp-request-context';

// Whether the guards of a request have let it through: an error after that point (the method, a pipe, an
// interceptor) is the handler's, not a refusal. Marked on the request's invocation where the pipeline leaves its
// guards behind.

/** Records that the guards of the request with context `ctx` let it through. */
export function markGuardsPassed(ctx: unknown): void {
  // A context made without an invocation (a test's stand-in) has nothing to mark.
  const invocation = ctx instanceof McpRequestContext ? (invocationOf(ctx) as McpInvocation | undefined) : undefined;
  if (invocation) invocation.guardsPassed = true;
}

/** Whether the guards of the request with context `ctx` let it through (false while they run, or if one refused). */
export function guardsPassed(ctx: McpRequestContext): boolean {
  return (invocationOf(ctx) as McpInvocation | undefined)?.guardsPassed ?? false;
}

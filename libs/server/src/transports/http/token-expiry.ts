import type { ServerResponse } from 'node:http';
import type { McpAuthInfo } from '../../auth/mcp-auth-info.interface';

// The longest delay setTimeout takes; a token valid for longer is not watched.
const MAX_DELAY_MS = 2 ** 31 - 1;

/** When the token behind `auth` stops being valid (its `exp` claim, as epoch milliseconds), when it says. */
export function tokenExpiryOf(auth: McpAuthInfo | undefined): number | undefined {
  const exp = auth?.claims?.exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1_000 : undefined;
}

/**
 * Ends the long-lived stream `res` (a standalone GET stream, an HTTP+SSE connection, a `subscriptions/listen` stream)
 * when the token it was opened with expires: every request needs a valid token, and a stream outlives its request,
 * so the client comes back with a fresh one (a Streamable HTTP GET stream resumes with `Last-Event-ID`).
 */
export function endAtTokenExpiry(res: ServerResponse, auth: McpAuthInfo | undefined): void {
  const expiry = tokenExpiryOf(auth);
  if (expiry === undefined) return;
  const delay = Math.max(0, expiry - Date.now());
  if (delay > MAX_DELAY_MS) return;
  const timer = setTimeout(() => res.end(), delay);
  timer.unref();
  res.once('close', () => clearTimeout(timer));
}

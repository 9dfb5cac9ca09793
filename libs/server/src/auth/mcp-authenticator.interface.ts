import type { TransportFacts } from '../dispatch/transport-facts.interface';
import type { McpAuthInfo } from './mcp-auth-info.interface';

export type { McpAuthInfo } from './mcp-auth-info.interface';

/**
 * An authenticator's verdict on a request. A refusal is answered with its status, a JSON-RPC error body and, on a
 * 401, `WWW-Authenticate: <challenge>` (default `Bearer`); on a 403 the challenge is sent when given.
 */
export type McpAuthResult =
  | { ok: true; auth?: McpAuthInfo }
  | {
      ok: false;
      status: 401 | 403;
      /** The `WWW-Authenticate` value: `Bearer resource_metadata="https://…/.well-known/oauth-protected-resource"`. */
      challenge?: string;
      /** The error message sent to the client. Default `Unauthorized` (401) or `Forbidden` (403). */
      message?: string;
    };

/**
 * Decides whether an HTTP request may reach the server (`McpModule.forRoot({ http: { authenticator } })`). The HTTP
 * transports (Streamable HTTP `POST`, `GET`, `DELETE`; HTTP+SSE) call it for every request once the Host and Origin
 * checks passed, before the body is read and before anything is dispatched. What it returns as `auth` reaches
 * handlers as `ctx.auth`. A throw is answered 500 with a generic message, its details never sent.
 */
export interface McpAuthenticator {
  /**
   * @example
   * authenticate(facts: TransportFacts): McpAuthResult {
   *   const header = facts.headers.authorization;
   *   const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
   *   if (token !== process.env.MCP_TOKEN) return { ok: false, status: 401, challenge: 'Bearer realm="mcp"' };
   *   return { ok: true, auth: { subject: 'ops', scopes: ['notes:read'], claims: {}, token } };
   * }
   */
  authenticate(facts: TransportFacts): McpAuthResult | Promise<McpAuthResult>;
}

/**
 * The injection token of the server's {@link McpAuthenticator} (interface and token under one name): the one
 * `http.authenticator` names, or null without one.
 */
export const McpAuthenticator = Symbol('McpAuthenticator');

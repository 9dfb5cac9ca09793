/**
 * Who made a request, as an {@link McpAuthenticator} established it: handed to handlers as `ctx.auth` and to
 * everything below the transport as `TransportFacts.auth`.
 */
export interface McpAuthInfo {
  /** The authenticated subject (a token's `sub`). */
  subject?: string;
  /** The OAuth client the token was issued to (`client_id`, `azp`). */
  clientId?: string;
  /** The scopes granted. */
  scopes: string[];
  /** The token's claims, or whatever else the authenticator learned. */
  claims: Record<string, unknown>;
  /** The credential itself, for a handler that calls another service on the caller's behalf. */
  token?: string;
}

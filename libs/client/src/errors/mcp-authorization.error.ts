/**
 * An authorization the OAuth client could not complete: discovery found nothing usable, a server's metadata failed
 * a check (its resource is not this server, an issuer that differs from the one named, no PKCE S256), the authorization
 * server refused, or a server kept refusing the scopes it asked for. The message says which; it never carries a token
 * or a secret.
 */
export class McpAuthorizationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpAuthorizationError';
  }
}

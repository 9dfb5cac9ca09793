import type { KeyObject } from 'node:crypto';
import type { OAuthNetworkOptions } from './guarded.fetch';
import type { McpTokenStore } from './mcp-token.store';

/**
 * OAuth 2.1 authorization of one HTTP server's requests (`transport.auth`): the client discovers the server's
 * authorization server when the server first answers 401, gets a token for the server (the RFC 8707 resource) and
 * sends it with every request; a 403 `insufficient_scope` re-authorizes with the scopes named. Without
 * `onAuthorizationUrl`, only the client credentials grant can run.
 *
 * @example
 * McpClientModule.forRoot({
 *   name: 'app',
 *   servers: [{ id: 'notes', transport: { type: 'http', url: 'https://notes.example.com/mcp', auth: {
 *     clientId: 'my-app',                              // pre-registered; else CIMD or dynamic registration
 *     redirectUri: 'https://app.example.com/oauth/callback',
 *     onAuthorizationUrl: (url) => askThePerson(url),  // resolves with the callback URL (code, state, iss)
 *   } } }],
 * });
 */
/** The enterprise identity provider of enterprise-managed authorization, and what the person signed in with. */
export interface McpEnterpriseIdentity {
  /** The identity provider's token endpoint (RFC 8693 token exchange). */
  tokenEndpoint: string;
  /** This client's id at the identity provider (and `clientSecret`, sent with `client_secret_basic`). */
  clientId: string;
  clientSecret?: string;
  /** The person's identity token (or the identity provider's refresh token); a function is asked each time. */
  subjectToken: string | (() => string | Promise<string>);
  /** Default `id_token`. */
  subjectTokenType?: 'id_token' | 'refresh_token';
}

export interface McpOAuthOptions extends OAuthNetworkOptions {
  /**
   * `authorization_code` (default): a person signs in. `client_credentials`: the app acts as itself. `jwt_bearer`: the
   * app presents `assertion`, a JWT another issuer gave it (RFC 7523: workload identity).
   */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt_bearer';
  /** The JWT of the `jwt_bearer` grant; a function is asked for a fresh one for each token request. */
  assertion?: string | (() => string | Promise<string>);
  /**
   * Enterprise-managed authorization (SEP-990), with `grant: 'jwt_bearer'` instead of `assertion`: the enterprise
   * identity provider exchanges the person's identity token for an identity assertion grant (ID-JAG) for the
   * authorization server and the server, which the client then presents.
   */
  enterprise?: McpEnterpriseIdentity;
  /** A pre-registered client id (with `clientSecret` or `privateKey` for a confidential client). */
  clientId?: string;
  clientSecret?: string;
  /** A private key (PEM, or a `KeyObject`): `private_key_jwt` client authentication (with `clientId`). */
  privateKey?: string | KeyObject;
  /** The JWS algorithm of `privateKey`'s assertions. Default: from the key (ES256 for P-256, RS256 for RSA). */
  privateKeyAlgorithm?: string;
  /**
   * The issuer the pre-registered credentials belong to: they are sent to that authorization server only (another
   * one — after a migration — gets a dynamic registration). Without it, they go to whichever the server names.
   */
  issuer?: string;
  /** An https URL of this client's metadata document, used as its client id where the server supports it (CIMD). */
  clientMetadataUrl?: string;
  /** `client_name` of a dynamic registration. Default: the client module's `name`. */
  clientName?: string;
  /** Where the authorization server sends the person back; required for `authorization_code`. */
  redirectUri?: string;
  /**
   * Shows `url` to the person (a browser, a printed link) and resolves with the URL the authorization server
   * redirected back to (its `code`, `state`, `iss`). Rejecting ends the authorization.
   */
  onAuthorizationUrl?(url: URL): Promise<URL | string>;
  /** The scopes to ask for, instead of the server's (the challenge's `scope`, else `scopes_supported`). */
  scope?: string[];
  /**
   * Ask for `offline_access` (a refresh token) when the authorization server lists it in `scopes_supported`. Default
   * true.
   */
  offlineAccess?: boolean;
  /**
   * Ask for DPoP-bound tokens (RFC 9449, an ES256 key in memory) and send a proof with each request. Also on when the
   * resource's metadata requires them (`dpop_bound_access_tokens_required`). Default false.
   */
  dpop?: boolean;
  /** Where tokens and registered clients are kept. Default: in memory, for this process. */
  tokenStore?: McpTokenStore;
  /** Authorizations for one set of scopes before a refusal is final (a server that keeps asking). Default 2. */
  maxAuthorizationAttempts?: number;
  /** How long `onAuthorizationUrl` may take. Default 5 minutes. */
  authorizationTimeoutMs?: number;
}

import type { TransportFacts } from '../dispatch/transport-facts.interface';
import type { McpAuthInfo } from './mcp-auth-info.interface';

/**
 * Checks an access token and says who it speaks for: the `McpAuthInfo` of a valid token (its subject, client,
 * scopes, claims), or undefined for a token that is not valid **for this resource** — expired, for another audience,
 * from an unknown issuer, badly signed. A throw is the verifier's own failure (its authorization server unreachable):
 * the request gets a 500, logged, never a 401.
 */
export interface McpTokenVerifier {
  verify(token: string, facts: TransportFacts): McpAuthInfo | undefined | Promise<McpAuthInfo | undefined>;
}

/** Tokens checked by a verifier of the app's. */
export interface McpCustomTokenVerification extends McpTokenVerifier {
  type: 'custom';
}

/**
 * JWT access tokens (RFC 9068), verified with `jose` (an optional peer: `npm install jose`; Node 20.19 or later):
 * signed by a key of their issuer, for this resource (`aud`), not expired. Scopes come from `scope` (or `scp`), the
 * client from `client_id` (or `azp`).
 */
export interface McpJwtTokenVerification {
  type: 'jwt';
  /** The issuers accepted (`iss`). Default: `authorizationServers`. */
  issuers?: string[];
  /** Where the keys are. Default: the issuer's metadata's `jwks_uri` (RFC 8414, then OpenID discovery). */
  jwksUri?: string;
  /** Accepted signature algorithms, asymmetric only. Default RS256, PS256, ES256, EdDSA. */
  algorithms?: string[];
  /** Clock skew tolerated on `exp` and `nbf`, 0 to 60 seconds. Default 5. */
  clockToleranceSeconds?: number;
  /** Audiences accepted besides `resource` (a provider that names the API another way). */
  audiences?: string[];
}

/**
 * Opaque access tokens, checked by asking the authorization server (OAuth 2.0 Token Introspection, RFC 7662): the
 * server posts each token it has not seen lately to the introspection endpoint, authenticated as an OAuth client, and
 * accepts it only if the answer is `active` and names this resource as an audience (`aud`), one of the accepted
 * issuers (`iss`, when given), a future `exp` (when given) and a `Bearer` token type (when given). Scopes come from
 * `scope`, the subject from `sub`, the client from `client_id`; the whole answer is `ctx.auth.claims`.
 *
 * Answers are cached, keyed by a hash of the token, for `cacheTtlMs` at most and never past the token's `exp`: a
 * token revoked at the authorization server may keep working here for up to `cacheTtlMs`. Inactive tokens are
 * remembered a few seconds. The endpoint failing (unreachable, slow, an error status) is the server's fault (a 500),
 * not the token's, and is not remembered.
 */
export interface McpIntrospectionTokenVerification {
  type: 'introspection';
  /**
   * The introspection endpoint (`https`; `http` only on a loopback host). Default: the `introspection_endpoint` of
   * the first authorization server's metadata (RFC 8414, then OpenID discovery).
   */
  endpoint?: string;
  /** The resource server's own client id at the authorization server. */
  clientId: string;
  /** Its client secret: sent to the endpoint only, never logged. */
  clientSecret: string;
  /**
   * How the client authenticates (RFC 6749 §2.3.1): an `Authorization: Basic` header, or `client_id` and
   * `client_secret` in the form. Default `client_secret_basic`.
   */
  clientAuthentication?: 'client_secret_basic' | 'client_secret_post';
  /** How long an answer is reused, in milliseconds, never beyond the token's `exp`; 0 asks every time. Default 60 000. */
  cacheTtlMs?: number;
  /** How many answers are kept at most (the cache is also bounded in bytes). Default 10 000. */
  maxCacheEntries?: number;
  /** The issuers accepted when an answer names one (`iss`). Default: `authorizationServers`. */
  issuers?: string[];
  /** Audiences accepted besides `resource` (a provider that names the API another way). */
  audiences?: string[];
}

/**
 * `McpModule.forRoot({ auth })`: the server as an OAuth 2.1 resource server (the MCP specification's authorization).
 * Every HTTP request needs `Authorization: Bearer <token>`, checked by `token`; the protected resource metadata
 * (RFC 9728) is served beside the endpoint, and refusals carry the challenges clients follow to authorize.
 */
export interface McpAuthOptions {
  /**
   * The server's canonical URI, as clients reach it (`https://mcp.example.com/mcp`; `http` only on a loopback host):
   * the metadata's `resource`, and the audience a token must be issued for (RFC 8707). Configuration, never derived
   * from a request's Host.
   */
  resource: string;
  /** The issuers of the tokens this server accepts (at least one), listed in the metadata. */
  authorizationServers: string[];
  /** How tokens are checked: JWTs with `jose`, opaque tokens by introspection, or a verifier of the app's. */
  token: McpJwtTokenVerification | McpIntrospectionTokenVerification | McpCustomTokenVerification;
  /**
   * The metadata's `scopes_supported`. Default: every scope `@McpScopes` declares on this server. Never
   * `offline_access` (the specification says so).
   */
  scopesSupported?: string[];
  /** The `scope` of a 401's challenge: what a client should ask for first. Default: none (it reads the metadata). */
  challengeScope?: string[];
  /**
   * Scopes that grant others (the specification asks a server to account for scope hierarchies): with
   * `{ admin: ['notes:read', 'notes:write'] }` a token with `admin` passes `@McpScopes('notes:write')`. Transitive.
   */
  impliedScopes?: Record<string, string[]>;
  /** Keep the token in `ctx.auth.token` (for a token exchange). Default false: a token passed on is a token leaked. */
  exposeToken?: boolean;
  /** The metadata's `resource_name` and `resource_documentation`. */
  resourceName?: string;
  resourceDocumentation?: string;
  /**
   * Serve the metadata at the root form too (`/.well-known/oauth-protected-resource`), which clients try after the
   * path form. Default true; only one server of an app can have it.
   */
  rootMetadata?: boolean;
}

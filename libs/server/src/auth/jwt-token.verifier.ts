import { scopesOfClaim } from '@conduit-mcp/core';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { McpAuthInfo } from './mcp-auth-info.interface';
import type { McpJwtTokenVerification, McpTokenVerifier } from './mcp-auth-options.interface';
import { IssuerMetadata } from './issuer-metadata.fetcher';
import { Jose, loadJose } from './jose.loader';

/** The signature algorithms accepted unless `algorithms` says otherwise (asymmetric only: no shared secrets). */
export const DEFAULT_JWT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;
const MAX_CLOCK_TOLERANCE_SECONDS = 60;

/** The key source failed (the authorization server unreachable, a bad key set): the server's fault, not the token's. */
class KeySourceError extends Error {}

/**
 * Verifies JWT access tokens (RFC 9068) with `jose`: signed by a key of the token's issuer — one of the configured
 * authorization servers, its keys found through its metadata (RFC 8414, then OpenID discovery) or `jwksUri`, cached,
 * reloaded once for an unknown key id with a cooldown — with an accepted algorithm, for this resource (`aud`), not
 * expired (`exp` required; `nbf` honoured; a few seconds of clock tolerance). Any failure of the token is "not valid"
 * (401); a failure to get the keys is thrown (500).
 */
export class JwtTokenVerifier implements McpTokenVerifier {
  private readonly jose: Jose;
  private readonly issuers: string[];
  private readonly keySets = new Map<string, Promise<JWTVerifyGetKey>>();
  private readonly metadata = new IssuerMetadata();
  private readonly algorithms: string[];
  private readonly clockTolerance: number;
  private readonly audiences: string[];

  constructor(
    private readonly options: McpJwtTokenVerification,
    resource: string,
    authorizationServers: string[],
  ) {
    this.jose = loadJose();
    this.issuers = options.issuers ?? authorizationServers;
    this.algorithms = options.algorithms ?? DEFAULT_JWT_ALGORITHMS;
    this.clockTolerance = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
    this.audiences = [resource, ...(options.audiences ?? [])];
  }

  async verify(token: string): Promise<McpAuthInfo | undefined> {
    let issuer: string | undefined;
    try {
      issuer = this.jose.decodeJwt(token).iss;
    } catch {
      return undefined; // not a JWT
    }
    if (issuer === undefined || !this.issuers.includes(issuer)) return undefined;
    const keys = await this.keysOf(issuer);
    let payload: JWTPayload;
    try {
      ({ payload } = await this.jose.jwtVerify(token, keys, {
        issuer,
        audience: this.audiences,
        algorithms: this.algorithms,
        clockTolerance: this.clockTolerance,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof KeySourceError) throw error.cause;
      return undefined; // expired, another audience, a bad signature, an unknown key…: a coded error or a TypeError
    }
    const auth: McpAuthInfo = { scopes: scopesOfClaim(payload.scope ?? payload.scp), claims: { ...payload } };
    if (typeof payload.sub === 'string') auth.subject = payload.sub;
    const clientId = payload.client_id ?? payload.azp;
    if (typeof clientId === 'string') auth.clientId = clientId;
    return auth;
  }

  // The issuer's key set: from `jwksUri`, else its metadata's `jwks_uri`; made once per issuer (a failed lookup is
  // tried again by the next request).
  private keysOf(issuer: string): Promise<JWTVerifyGetKey> {
    let keys = this.keySets.get(issuer);
    if (!keys) {
      keys = this.keySetOf(issuer);
      this.keySets.set(issuer, keys);
      keys.catch(() => this.keySets.delete(issuer));
    }
    return keys;
  }

  private async keySetOf(issuer: string): Promise<JWTVerifyGetKey> {
    const uri = this.options.jwksUri ?? (await this.metadata.jwksUriOf(issuer));
    const remote = this.jose.createRemoteJWKSet(new URL(uri), { timeoutDuration: 5_000, cooldownDuration: 30_000 });
    return async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        // No key of that id (after one reload), or several: the token's fault. Anything else: the key source's.
        if (code === 'ERR_JWKS_NO_MATCHING_KEY' || code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw error;
        throw new KeySourceError('The authorization server’s keys could not be read', { cause: error });
      }
    };
  }

  /** The clock tolerance, checked (a larger one would accept tokens long expired). */
  static checkOptions(options: McpJwtTokenVerification): string | undefined {
    const tolerance = options.clockToleranceSeconds;
    if (
      tolerance !== undefined &&
      !(Number.isInteger(tolerance) && tolerance >= 0 && tolerance <= MAX_CLOCK_TOLERANCE_SECONDS)
    )
      return `token.clockToleranceSeconds must be a whole number of seconds from 0 to ${MAX_CLOCK_TOLERANCE_SECONDS}`;
    if (options.algorithms !== undefined && (!Array.isArray(options.algorithms) || options.algorithms.length === 0))
      return 'token.algorithms must list at least one algorithm';
    if (options.algorithms?.some((alg) => alg === 'none' || alg.startsWith('HS')))
      return 'token.algorithms takes asymmetric algorithms only (no none, no HS*: a shared secret is not a public key)';
    return undefined;
  }
}

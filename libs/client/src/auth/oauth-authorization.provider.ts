import { BearerChallenge, ProtectedResourceMetadata, parseBearerChallenge } from '@conduit-mcp/core';
import type { AuthorizationServer, DPoPHandle, TokenEndpointResponse } from 'oauth4webapi';
import type { McpHttpAuthProvider, McpHttpRefusal } from '../transports/http-client.session';
import { discoverAuthorizationServer, legacyAuthorizationServer } from './authorization-server.discovery';
import { ClientIdentity, resolveClientIdentity } from './client-identity.resolver';
import { DPoPKey } from './dpop.proof';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import type { McpOAuthOptions } from './mcp-oauth.options';
import { McpStoredTokens, McpTokenKey, McpTokenStore, MemoryTokenStore } from './mcp-token.store';
import { OAuthExchange } from './oauth.exchange';
import { discoverResourceMetadata } from './resource-metadata.discovery';
import { chooseScopes } from './scope.selector';
import {
  GrantContext,
  assertAuthorizationCodeGrant,
  authorizationCodeGrant,
  clientCredentialsGrant,
  jwtBearerGrant,
  refreshGrant,
} from './token.grants';

const GRANTS: Record<string, (context: GrantContext, scope: string[]) => Promise<TokenEndpointResponse>> = {
  authorization_code: authorizationCodeGrant,
  client_credentials: clientCredentialsGrant,
  jwt_bearer: jwtBearerGrant,
};

/** A token this close to its expiry (or half its lifetime, when shorter) is refreshed before it is sent. */
const EXPIRY_MARGIN_MS = 30_000;
/** The window in which `maxAuthorizationAttempts` authorizations for one set of scopes are allowed. */
const ATTEMPT_WINDOW_MS = 60_000;
const DEFAULT_MAX_ATTEMPTS = 2;

/** The authorization server of the server, as discovered. */
interface Authority {
  issuer: string;
  /** The RFC 8707 resource tokens are asked for: the protected resource metadata's `resource`. */
  resource: string;
  as: AuthorizationServer;
  metadataFound: boolean;
  resourceMetadata?: ProtectedResourceMetadata;
  identity?: ClientIdentity;
  /** The DPoP key's handle for this authorization server's token endpoint, when tokens are DPoP-bound. */
  dpop?: DPoPHandle;
}

/**
 * OAuth 2.1 for one server's HTTP requests (what `transport.auth: McpOAuthOptions` becomes): no token until the server
 * asks; its 401 starts discovery (protected resource metadata, then the authorization server's), the client's identity
 * (pre-registered, CIMD or dynamic registration) and a grant; tokens are kept in the token store per authorization
 * server and resource, refreshed before they expire; a refused token is replaced (a new authorization server gets a new
 * client, never the old one's credentials); a 403 `insufficient_scope` re-authorizes with the scopes held and those
 * named, up to `maxAuthorizationAttempts` times for one set of scopes. With `dpop` (or a resource that requires it),
 * tokens are DPoP-bound (RFC 9449) to a key held in memory, and each request carries a proof.
 */
export class OAuthAuthorizationProvider implements McpHttpAuthProvider {
  private readonly exchange: OAuthExchange;
  private readonly store: McpTokenStore;
  private readonly options: McpOAuthOptions & { clientName: string };
  private authority: Authority | undefined;
  private tokens: McpStoredTokens | undefined;
  private authorizing: Promise<boolean> | undefined;
  private refreshing: Promise<void> | undefined;
  private readonly attempts = new Map<string, number[]>();
  private dpopKey: DPoPKey | undefined;

  constructor(
    private readonly server: URL,
    options: McpOAuthOptions & { clientName: string },
  ) {
    this.options = options;
    this.exchange = new OAuthExchange(options);
    this.store = options.tokenStore ?? new MemoryTokenStore();
  }

  headers(url: URL, method: string): Record<string, string> | undefined | Promise<Record<string, string> | undefined> {
    const tokens = this.tokens;
    if (!tokens) return undefined;
    if (expiring(tokens)) return this.refreshExpiring().then(() => this.credentials(url, method));
    return this.credentials(url, method);
  }

  unauthorized(refusal: McpHttpRefusal): boolean | Promise<boolean> {
    const dpop = this.tokens?.tokenType === 'DPoP' ? parseBearerChallenge(refusal.challenge, 'DPoP') : undefined;
    // RFC 9449 §9: the resource server wants its nonce in the proof; the same token, once more.
    if (dpop?.error === 'use_dpop_nonce' && this.dpopKey) {
      const nonce = refusal.responseHeaders.get('dpop-nonce');
      if (!nonce || nonce === this.dpopKey.nonceOf(refusal.url)) return false;
      this.dpopKey.rememberNonce(refusal.url, nonce);
      return true;
    }
    const challenge = dpop ?? parseBearerChallenge(refusal.challenge);
    if (refusal.status === 403 && challenge?.error !== 'insufficient_scope') return false;
    // A request refused while an authorization ran, or with a token since replaced (a new one, or a step-up's: a 403
    // answered late must not ask the person again), retries with the current token.
    if (this.authorizing)
      return this.authorizing.then(
        () => true,
        () => false,
      );
    const current = this.bearer()?.Authorization;
    if (current !== undefined && refusal.sent?.Authorization !== current) return true;
    const run = this.authorize(refusal.status, challenge);
    this.authorizing = run;
    void run.finally(() => (this.authorizing = undefined)).catch(() => undefined);
    return run;
  }

  private bearer(): Record<string, string> | undefined {
    return this.tokens ? { Authorization: `${this.tokens.tokenType} ${this.tokens.accessToken}` } : undefined;
  }

  /** The current token's headers: `Authorization`, and a DPoP-bound token's proof for this request. */
  private credentials(url: URL, method: string): Record<string, string> | undefined | Promise<Record<string, string>> {
    const tokens = this.tokens;
    if (!tokens) return undefined;
    const authorization = `${tokens.tokenType} ${tokens.accessToken}`;
    if (tokens.tokenType !== 'DPoP' || !this.dpopKey) return { Authorization: authorization };
    return this.dpopKey
      .proof(method, url, tokens.accessToken)
      .then((proof) => ({ Authorization: authorization, DPoP: proof }));
  }

  private async authorize(status: 401 | 403, challenge: BearerChallenge | undefined): Promise<boolean> {
    const previous = this.authority;
    const held = this.tokens;
    const authority = !previous || status === 401 ? await this.discover(challenge, previous) : previous;
    this.authority = authority;
    const key: McpTokenKey = { issuer: authority.issuer, resource: authority.resource };
    if (status === 401) {
      this.tokens = undefined;
      if (held && previous) await this.store.delete({ issuer: previous.issuer, resource: previous.resource });
      // A DPoP-bound token from the store is bound to a key of another run: useless here.
      const stored = held && previous?.issuer === authority.issuer ? held : await this.store.get(key);
      const usable = stored?.tokenType === 'DPoP' && stored !== held ? undefined : stored;
      if (usable && usable !== held && !expiring(usable)) return this.use(key, usable);
      if (usable?.refreshToken && (await this.tryRefresh(authority, key, usable))) return true;
    }
    const code = (this.options.grant ?? 'authorization_code') === 'authorization_code';
    if (code) assertAuthorizationCodeGrant(authority.as, this.options, authority.metadataFound);
    const scope = chooseScopes({
      configured: this.options.scope,
      challenge,
      held: held?.scope,
      resource: authority.resourceMetadata,
      serverScopes: authority.as.scopes_supported,
      offlineAccess: code && this.options.offlineAccess !== false,
    });
    this.countAttempt(authority.issuer, scope);
    const context = await this.grantContext(authority);
    const grant = GRANTS[this.options.grant ?? 'authorization_code'];
    if (!grant) throw new McpAuthorizationError(`Unknown grant ${JSON.stringify(this.options.grant)}`);
    const response = await grant(context, scope);
    const tokens = storedTokens(response, scope, context.dpop !== undefined);
    await this.use(key, tokens);
    // An authorization server that leaves out a scope the server asked for will do so again: say so now, rather than
    // ask the person again for nothing.
    if (challenge?.error === 'insufficient_scope' && typeof response.scope === 'string') {
      const withheld = (challenge.scope ?? []).filter((needed) => !tokens.scope.includes(needed));
      if (withheld.length) {
        throw new McpAuthorizationError(
          `The authorization server ${authority.issuer} did not grant the scopes ${this.server.href} asks for: [${withheld.join(' ')}]`,
        );
      }
    }
    return true;
  }

  private async discover(challenge: BearerChallenge | undefined, previous: Authority | undefined): Promise<Authority> {
    const { exchange, server } = this;
    const resourceMetadata = await discoverResourceMetadata(server, exchange.fetch, challenge?.resourceMetadata);
    if (!resourceMetadata) {
      const legacy = await legacyAuthorizationServer(server, exchange.fetch, exchange.oauth);
      if (previous?.issuer === legacy.as.issuer) return previous;
      const resource = server.origin + server.pathname;
      return { issuer: legacy.as.issuer, resource, as: legacy.as, metadataFound: legacy.metadataFound };
    }
    const issuer = resourceMetadata.authorization_servers[0];
    if (previous?.issuer === issuer && previous.resource === resourceMetadata.resource) {
      return { ...previous, resourceMetadata };
    }
    const as = await discoverAuthorizationServer(issuer, exchange.fetch, exchange.oauth);
    return { issuer, resource: resourceMetadata.resource, as, metadataFound: true, resourceMetadata };
  }

  private async grantContext(authority: Authority): Promise<GrantContext> {
    authority.identity ??= await resolveClientIdentity(authority.as, this.options, this.store, this.exchange);
    if (!authority.dpop && this.dpopRequired(authority)) {
      this.dpopKey ??= await DPoPKey.generate();
      authority.dpop = this.exchange.oauth.DPoP(
        authority.identity.client,
        this.dpopKey.keyPair as Parameters<OAuthExchange['oauth']['DPoP']>[1],
      );
    }
    const { as, identity, resource, metadataFound, dpop } = authority;
    return { as, identity, exchange: this.exchange, resource, options: this.options, metadataFound, dpop };
  }

  /**
   * Whether tokens are to be DPoP-bound: configured, or required by the resource (RFC 9728
   * `dpop_bound_access_tokens_required`); the authorization server must then support ES256 proofs.
   */
  private dpopRequired(authority: Authority): boolean {
    const required = authority.resourceMetadata?.dpop_bound_access_tokens_required === true;
    if (this.options.dpop !== true && !required) return false;
    const algorithms = authority.as.dpop_signing_alg_values_supported;
    if (!Array.isArray(algorithms) || !algorithms.includes('ES256')) {
      throw new McpAuthorizationError(
        `The authorization server ${authority.issuer} does not support DPoP with ES256, which ${required ? 'the server requires' : 'dpop asks for'}`,
      );
    }
    return true;
  }

  private async use(key: McpTokenKey, tokens: McpStoredTokens): Promise<true> {
    this.tokens = tokens;
    await this.store.set(key, tokens);
    return true;
  }

  private refreshExpiring(): Promise<void> {
    this.refreshing ??= (async () => {
      const tokens = this.tokens;
      const authority = this.authority;
      if (!tokens || !authority) return;
      const key = { issuer: authority.issuer, resource: authority.resource };
      // Without a refresh token, or when the refresh fails, no token is sent: the server's 401 re-authorizes.
      if (!tokens.refreshToken || !(await this.tryRefresh(authority, key, tokens))) {
        this.tokens = undefined;
        await this.store.delete(key);
      }
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async tryRefresh(authority: Authority, key: McpTokenKey, tokens: McpStoredTokens): Promise<boolean> {
    try {
      const response = await refreshGrant(await this.grantContext(authority), tokens.refreshToken!);
      const refreshed = storedTokens(response, tokens.scope, tokens.tokenType === 'DPoP');
      // RFC 6749 §6: the refresh token stays valid unless a new one is issued.
      refreshed.refreshToken ??= tokens.refreshToken;
      await this.use(key, refreshed);
      return true;
    } catch {
      return false;
    }
  }

  private countAttempt(issuer: string, scope: string[]): void {
    const max = this.options.maxAuthorizationAttempts ?? DEFAULT_MAX_ATTEMPTS;
    const key = `${issuer} ${[...scope].sort().join(' ')}`;
    const now = Date.now();
    const recent = (this.attempts.get(key) ?? []).filter((at) => now - at < ATTEMPT_WINDOW_MS);
    if (recent.length >= max) {
      throw new McpAuthorizationError(
        `${this.server.href} still refuses after ${max} authorizations with the scopes [${scope.join(' ')}]`,
      );
    }
    recent.push(now);
    this.attempts.set(key, recent);
    if (this.attempts.size > 100) this.attempts.delete(this.attempts.keys().next().value!);
  }
}

function expiring(tokens: McpStoredTokens): boolean {
  if (tokens.expiresAt === undefined) return false;
  const lifetime = tokens.issuedAt === undefined ? Infinity : tokens.expiresAt - tokens.issuedAt;
  return tokens.expiresAt - Math.min(EXPIRY_MARGIN_MS, lifetime / 2) <= Date.now();
}

function storedTokens(response: TokenEndpointResponse, asked: string[], dpop: boolean): McpStoredTokens {
  const type = response.token_type.toLowerCase();
  if (type !== 'bearer' && !(dpop && type === 'dpop')) {
    throw new McpAuthorizationError(
      `The authorization server issued a ${response.token_type} token; expected ${dpop ? 'DPoP or Bearer' : 'Bearer'}`,
    );
  }
  const tokens: McpStoredTokens = {
    accessToken: response.access_token,
    tokenType: type === 'dpop' ? 'DPoP' : 'Bearer',
    scope: typeof response.scope === 'string' ? response.scope.split(' ').filter(Boolean) : asked,
  };
  if (typeof response.expires_in === 'number') {
    tokens.issuedAt = Date.now();
    tokens.expiresAt = tokens.issuedAt + response.expires_in * 1000;
  }
  if (typeof response.refresh_token === 'string') tokens.refreshToken = response.refresh_token;
  return tokens;
}

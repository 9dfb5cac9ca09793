// The OAuth client side of an MCP host, in memory, for the official SDK clients (1.x `@modelcontextprotocol/sdk`
// and 2.x `@modelcontextprotocol/client` take the same shape of provider): a public client (PKCE, no secret) that
// registers itself dynamically, or uses a client registered beforehand, and "opens a browser" by handing the
// authorization URL to the test authorization server's browse(), keeping the redirect it lands on for the test to
// finish the flow with. Holds tokens; never prints one.
import type { OAuthClientProvider as Sdk1OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientProvider as Sdk2OAuthClientProvider,
  OAuthClientMetadata,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { randomBytes } from 'node:crypto';

export interface TestOAuthClientOptions {
  /** Follows an authorization URL as a browser would and returns the redirect (the fixture's `browse`). */
  browse(authorizationUrl: URL): Promise<URL>;
  /** Default `http://127.0.0.1/oauth/callback`: never visited, browse() stops at it. */
  redirectUrl?: string;
  /**
   * A client registered beforehand (no dynamic registration then), with the issuer of the authorization server it is
   * registered at: the SDKs bind stored credentials to one issuer (SEP-2352) and warn about unbound ones.
   */
  registered?: { clientId: string; issuer: string };
  /** The `scope` of the client metadata (the SDKs register the scope they resolve instead, when they resolve one). */
  scope?: string;
  /** Default authorization code and refresh token. */
  grantTypes?: string[];
  clientName?: string;
}

/**
 * An `OAuthClientProvider` for both SDK generations. When the transport rejects with `UnauthorizedError`, the
 * redirect is in `callback` (see `takeCallback`): pass its `code` to an SDK 1.x `transport.finishAuth`, or its
 * `searchParams` to an SDK 2.x one, then connect again (or, after a step-up, repeat the call).
 */
export class TestOAuthClientProvider implements Sdk1OAuthClientProvider, Sdk2OAuthClientProvider {
  /** Every authorization URL the SDK sent the "user" to, in order. */
  readonly authorizationUrls: URL[] = [];
  /** Where the last authorization ended: the redirect URI with `code`, `state` and `iss` (or `error`). */
  callback: URL | undefined;
  /** How many times the SDK registered this client (dynamic client registration). */
  registrations = 0;

  private information: StoredOAuthClientInformation | undefined;
  private stored: StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private pendingState: string | undefined;

  constructor(private readonly options: TestOAuthClientOptions) {
    if (options.registered)
      this.information = { client_id: options.registered.clientId, issuer: options.registered.issuer };
  }

  get redirectUrl(): string {
    return this.options.redirectUrl ?? 'http://127.0.0.1/oauth/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? 'conduit-e2e',
      redirect_uris: [this.redirectUrl],
      grant_types: this.options.grantTypes ?? ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }

  state(): string {
    this.pendingState = randomBytes(16).toString('base64url');
    return this.pendingState;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.information;
  }

  saveClientInformation(information: StoredOAuthClientInformation): void {
    // The SDKs also save a known client back with the issuer they bound it to: that is no registration.
    if (this.information?.client_id !== information.client_id) this.registrations++;
    this.information = information;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.stored;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.stored = tokens;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrls.push(authorizationUrl);
    const callback = await this.options.browse(authorizationUrl);
    // The SDKs leave `state` to the host (their finishAuth never sees it): checked here, as a host would.
    if (callback.searchParams.get('state') !== this.pendingState)
      throw new Error('The authorization redirect carries another state');
    this.callback = callback;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('No PKCE code verifier was saved');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }

  /** The redirect of the last authorization, once (a code is redeemed once). */
  takeCallback(): URL {
    const callback = this.callback;
    if (!callback) throw new Error('No authorization has reached the redirect URI');
    this.callback = undefined;
    return callback;
  }

  /** The access token last saved. */
  get accessToken(): string {
    if (!this.stored) throw new Error('No tokens were saved');
    return this.stored.access_token;
  }
}

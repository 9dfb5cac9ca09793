import type { AuthorizationServer, DPoPHandle, TokenEndpointResponse } from 'oauth4webapi';
import type { ClientIdentity } from './client-identity.resolver';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import type { McpOAuthOptions } from './mcp-oauth.options';
import { identityAssertion } from './identity-assertion.exchange';
import { resourceParameters } from './token-request.parameters';
import type { OAuthExchange, OAuthStep } from './oauth.exchange';

const DEFAULT_AUTHORIZATION_TIMEOUT_MS = 5 * 60_000;

/** One authorization server, the client's identity there, and the resource (RFC 8707) tokens are asked for. */
export interface GrantContext {
  as: AuthorizationServer;
  identity: ClientIdentity;
  exchange: OAuthExchange;
  resource: string;
  options: McpOAuthOptions;
  /** False for the 2025-03-26 default endpoints, used without metadata. */
  metadataFound: boolean;
  /** The client's DPoP key at the token endpoint, when tokens are DPoP-bound. */
  dpop?: DPoPHandle;
}

/**
 * What the authorization code grant needs at `as` before anything is sent there (a client registered for a grant that
 * cannot run would be left behind): `redirectUri` and `onAuthorizationUrl`, an authorization endpoint, and PKCE S256
 * advertised in the metadata (the 2025-03-26 default endpoints, used without metadata, are taken on trust).
 */
export function assertAuthorizationCodeGrant(
  as: AuthorizationServer,
  options: McpOAuthOptions,
  metadataFound: boolean,
): asserts options is McpOAuthOptions & Required<Pick<McpOAuthOptions, 'redirectUri' | 'onAuthorizationUrl'>> {
  if (!options.onAuthorizationUrl || !options.redirectUri) {
    throw new McpAuthorizationError(
      'The server needs an authorization: configure redirectUri and onAuthorizationUrl (or grant: client_credentials)',
    );
  }
  if (!as.authorization_endpoint) {
    throw new McpAuthorizationError(`The authorization server ${as.issuer} names no authorization endpoint`);
  }
  if (metadataFound && !as.code_challenge_methods_supported?.includes('S256')) {
    throw new McpAuthorizationError(`The authorization server ${as.issuer} does not advertise PKCE with S256`);
  }
}

/**
 * The authorization code grant with PKCE S256 (a server that does not advertise S256 is refused): the authorization
 * URL goes to `onAuthorizationUrl`, the callback it resolves with is checked (state, error, and the RFC 9207 `iss`
 * against the issuer — a plain string comparison, required when the server advertises it), then the code is
 * exchanged. `resource` goes with both requests, `scope` when there are scopes.
 */
export async function authorizationCodeGrant(context: GrantContext, scope: string[]): Promise<TokenEndpointResponse> {
  const { as, identity, exchange, options, resource } = context;
  const { oauth } = exchange;
  assertAuthorizationCodeGrant(as, options, context.metadataFound);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', identity.client.client_id);
  url.searchParams.set('redirect_uri', options.redirectUri);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  url.searchParams.set('resource', resource);
  if (scope.length) url.searchParams.set('scope', scope.join(' '));

  const callback = await withTimeout(
    Promise.resolve(options.onAuthorizationUrl(url)),
    options.authorizationTimeoutMs ?? DEFAULT_AUTHORIZATION_TIMEOUT_MS,
  );
  const params = await exchange.call('authorization', () =>
    oauth.validateAuthResponse(as, identity.client, new URL(String(callback)), state),
  );
  return tokenRequest(
    context,
    'token request',
    (requestOptions) =>
      oauth.authorizationCodeGrantRequest(
        as,
        identity.client,
        identity.authentication,
        params,
        options.redirectUri,
        verifier,
        { ...requestOptions, additionalParameters: { resource } },
      ),
    (response) => oauth.processAuthorizationCodeResponse(as, identity.client, response),
  );
}

/** The client credentials grant: the client acts as itself (`resource`, and `scope` when there are scopes). */
export function clientCredentialsGrant(context: GrantContext, scope: string[]): Promise<TokenEndpointResponse> {
  const { as, identity, exchange, resource } = context;
  const parameters = resourceParameters(resource, scope);
  return tokenRequest(
    context,
    'token request',
    (requestOptions) =>
      exchange.oauth.clientCredentialsGrantRequest(
        as,
        identity.client,
        identity.authentication,
        parameters,
        requestOptions,
      ),
    (response) => exchange.oauth.processClientCredentialsResponse(as, identity.client, response),
  );
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * The JWT bearer grant (RFC 7523 §2.1): the configured `assertion` (a workload's identity token), or the identity
 * assertion grant of enterprise-managed authorization, for a token for `resource`. A refusal is final: the error is
 * the authorization server's, and no other grant is tried.
 */
export async function jwtBearerGrant(context: GrantContext, scope: string[]): Promise<TokenEndpointResponse> {
  const { as, identity, exchange, resource, options } = context;
  const source = options.assertion;
  const assertion = options.enterprise
    ? await identityAssertion(exchange, { as, resource, scope }, options.enterprise)
    : typeof source === 'function'
      ? await source()
      : source;
  if (typeof assertion !== 'string' || !assertion) {
    throw new McpAuthorizationError(
      'The jwt_bearer grant needs an assertion (a JWT, or a function giving one) or an enterprise identity provider',
    );
  }
  const parameters = resourceParameters(resource, scope, { assertion });
  return tokenRequest(
    context,
    'token request',
    (requestOptions) =>
      exchange.oauth.genericTokenEndpointRequest(
        as,
        identity.client,
        identity.authentication,
        JWT_BEARER,
        parameters,
        requestOptions,
      ),
    (response) => exchange.oauth.processGenericTokenEndpointResponse(as, identity.client, response),
  );
}

/** A new access token for `refreshToken`, for the same resource. */
export function refreshGrant(context: GrantContext, refreshToken: string): Promise<TokenEndpointResponse> {
  const { as, identity, exchange, resource } = context;
  return tokenRequest(
    context,
    'token refresh',
    (requestOptions) =>
      exchange.oauth.refreshTokenGrantRequest(as, identity.client, identity.authentication, refreshToken, {
        ...requestOptions,
        additionalParameters: { resource },
      }),
    (response) => exchange.oauth.processRefreshTokenResponse(as, identity.client, response),
  );
}

/**
 * One token request (`send`, with the exchange's options and the DPoP handle when tokens are DPoP-bound) and its answer
 * (`process`); an authorization server that answers `use_dpop_nonce` gets the request once more, with its nonce
 * (RFC 9449 §8: the handle keeps it).
 */
async function tokenRequest(
  context: GrantContext,
  step: OAuthStep,
  send: (requestOptions: Record<PropertyKey, unknown>) => Promise<Response>,
  process: (response: Response) => Promise<TokenEndpointResponse>,
): Promise<TokenEndpointResponse> {
  const { exchange, dpop } = context;
  const requestOptions = dpop ? { ...exchange.requestOptions, DPoP: dpop } : exchange.requestOptions;
  for (let attempt = 0; ; attempt++) {
    const response = await exchange.call(step, () => send(requestOptions));
    try {
      return await process(response);
    } catch (error) {
      if (attempt === 0 && dpop && exchange.oauth.isDPoPNonceError(error)) continue;
      return exchange.call(step, () => Promise.reject(error as Error));
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new McpAuthorizationError(`The authorization was not completed within ${ms} ms`)),
      ms,
    );
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

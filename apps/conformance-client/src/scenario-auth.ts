import type { McpOAuthOptions } from '@conduit-mcp/client';
import type { ScenarioContext } from './conformance.scenarios';

/** The client id metadata document URL the suite's CIMD scenarios expect (the mock never fetches it). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Registered as the redirect URI; nothing listens there: the mock authorization server redirects without a login. */
const REDIRECT_URI = 'http://localhost:3000/callback';
/** The extension scenarios of the client credentials grant. */
const CLIENT_CREDENTIALS = new Set(['auth/client-credentials-basic', 'auth/client-credentials-jwt']);

/**
 * The OAuth options of an `auth/*` scenario: the suite's mock servers are plain http on localhost (allowed here only),
 * the authorization URL is "visited" by reading the mock's immediate redirect, and the credentials the scenario's
 * context carries are used as pre-registered ones. `undefined` for the other scenarios.
 */
export function scenarioAuth(scenario: string, context: ScenarioContext): McpOAuthOptions | undefined {
  if (!scenario.startsWith('auth/')) return undefined;
  const options: McpOAuthOptions = {
    allowInsecureLoopback: true,
    clientName: 'conduit-conformance-client',
    clientMetadataUrl: CLIENT_METADATA_URL,
    redirectUri: REDIRECT_URI,
    onAuthorizationUrl: followAuthorizationRedirect,
  };
  if (CLIENT_CREDENTIALS.has(scenario)) options.grant = 'client_credentials';
  if (scenario === 'auth/dpop' || scenario === 'auth/dpop-nonce') options.dpop = true;
  if (scenario === 'auth/enterprise-managed-authorization' && context.idp_token_endpoint && context.idp_id_token) {
    options.grant = 'jwt_bearer';
    options.enterprise = {
      tokenEndpoint: context.idp_token_endpoint,
      clientId: context.idp_client_id ?? '',
      subjectToken: context.idp_id_token,
    };
  }
  if (scenario === 'auth/wif-jwt-bearer') {
    options.grant = 'jwt_bearer';
    options.assertion = context.valid_jwt;
  }
  if (context.client_id) options.clientId = context.client_id;
  if (context.client_secret) options.clientSecret = context.client_secret;
  if (context.private_key_pem) options.privateKey = context.private_key_pem;
  if (context.signing_algorithm) options.privateKeyAlgorithm = context.signing_algorithm;
  if (context.issuer) options.issuer = context.issuer;
  return options;
}

/** The callback URL: where the mock authorization server redirects the authorization request to, at once. */
async function followAuthorizationRedirect(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location) throw new Error(`The authorization endpoint answered ${response.status} without a redirect`);
  return location;
}

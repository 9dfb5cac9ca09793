import type { AuthorizationServer, Client } from 'oauth4webapi';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import { clientSecretBasic } from './client-identity.resolver';
import type { McpEnterpriseIdentity } from './mcp-oauth.options';
import type { OAuthExchange } from './oauth.exchange';
import { resourceParameters } from './token-request.parameters';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

/**
 * Enterprise-managed authorization (SEP-990), its first step: the enterprise identity provider exchanges the person's
 * identity token (or its refresh token) for an identity assertion grant (ID-JAG) naming this authorization server
 * (`audience`) and the server (`resource`), by RFC 8693 token exchange. The assertion then goes to the authorization
 * server in a JWT bearer grant.
 */
export async function identityAssertion(
  exchange: OAuthExchange,
  target: { as: AuthorizationServer; resource: string; scope: string[] },
  enterprise: McpEnterpriseIdentity,
): Promise<string> {
  const { as, resource, scope } = target;
  const { oauth } = exchange;
  let endpoint: URL;
  try {
    endpoint = new URL(enterprise.tokenEndpoint);
  } catch {
    throw new McpAuthorizationError('enterprise.tokenEndpoint is not an absolute URL');
  }
  const idp: AuthorizationServer = { issuer: endpoint.origin, token_endpoint: endpoint.href };
  const client: Client = { client_id: enterprise.clientId };
  const authentication =
    enterprise.clientSecret === undefined ? oauth.None() : clientSecretBasic(enterprise.clientSecret);
  const source = enterprise.subjectToken;
  const subjectToken = typeof source === 'function' ? await source() : source;
  const parameters = resourceParameters(resource, scope, {
    requested_token_type: ID_JAG,
    audience: as.issuer,
    subject_token: subjectToken,
    subject_token_type: `urn:ietf:params:oauth:token-type:${enterprise.subjectTokenType ?? 'id_token'}`,
  });
  const response = await exchange.call('token exchange', () =>
    oauth.genericTokenEndpointRequest(idp, client, authentication, TOKEN_EXCHANGE, parameters, exchange.requestOptions),
  );
  // An ID-JAG is no access token: RFC 8693 §2.2.1 has its token_type "N_A".
  const answer = await exchange.call('token exchange', () =>
    oauth.processGenericTokenEndpointResponse(idp, client, response, {
      recognizedTokenTypes: { n_a: () => undefined },
    }),
  );
  if (answer.issued_token_type !== ID_JAG) {
    throw new McpAuthorizationError(
      `The identity provider issued a ${String(answer.issued_token_type)} token, not an identity assertion grant`,
    );
  }
  return answer.access_token;
}

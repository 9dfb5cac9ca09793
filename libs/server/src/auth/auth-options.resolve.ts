import {
  ProtectedResourceMetadata,
  isScopeToken,
  protectedResourceMetadataUrls,
  resourceUriProblems,
} from '@conduit-mcp/core';
import { IntrospectionTokenVerifier } from './introspection-token.verifier';
import { JwtTokenVerifier } from './jwt-token.verifier';
import {
  McpAuthOptions,
  McpIntrospectionTokenVerification,
  McpJwtTokenVerification,
  McpTokenVerifier,
} from './mcp-auth-options.interface';

/**
 * The injection token of the server's resolved `auth` option (null without one): resolved once, at start-up, for the
 * authenticator, the metadata's routes and the scope rule.
 */
export const MCP_RESOLVED_AUTH = Symbol('MCP_RESOLVED_AUTH');

/** The `auth` option, checked, and what follows from it. */
export interface ResolvedAuth {
  options: McpAuthOptions;
  /** The protected resource metadata document. */
  metadata: ProtectedResourceMetadata;
  /** Its URL as clients see it (the `resource_metadata` of every challenge). */
  metadataUrl: string;
  /** The local paths it is served at: the path form, and the root form unless turned off. */
  metadataPaths: string[];
}

/** Checks the `auth` option (a start-up error names what is wrong) and derives the metadata from it. */
export function resolveAuthOptions(name: string, auth: McpAuthOptions): ResolvedAuth {
  const fail = (problem: string): never => {
    throw new Error(`MCP server "${name}": auth.${problem}`);
  };
  if (typeof auth.resource !== 'string') fail("resource is required: the server's canonical URI");
  const problems = resourceUriProblems(auth.resource);
  if (problems.length)
    fail(`resource ${JSON.stringify(auth.resource)} is not a canonical resource URI: ${problems.join('; ')}`);
  const servers = auth.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0)
    fail('authorizationServers needs at least one issuer (the metadata must name one)');
  for (const server of servers) {
    const wrong = typeof server === 'string' ? resourceUriProblems(server) : ['not a string'];
    if (wrong.length) fail(`authorizationServers has ${JSON.stringify(server)}: ${wrong.join('; ')}`);
  }
  const token = auth.token as { type?: unknown; verify?: unknown } | undefined;
  if (token?.type === 'jwt') {
    const problem = JwtTokenVerifier.checkOptions(auth.token as McpJwtTokenVerification);
    if (problem) fail(problem);
    for (const issuer of (auth.token as McpJwtTokenVerification).issuers ?? []) {
      if (typeof issuer !== 'string' || resourceUriProblems(issuer).length)
        fail(`token.issuers has ${JSON.stringify(issuer)}`);
    }
  } else if (token?.type === 'introspection') {
    const problem = IntrospectionTokenVerifier.checkOptions(auth.token as McpIntrospectionTokenVerification);
    if (problem) fail(problem);
    for (const issuer of (auth.token as McpIntrospectionTokenVerification).issuers ?? []) {
      if (typeof issuer !== 'string' || resourceUriProblems(issuer).length)
        fail(`token.issuers has ${JSON.stringify(issuer)}`);
    }
  } else if (token?.type !== 'custom' || typeof token.verify !== 'function') {
    fail(
      "token must be { type: 'jwt', … }, { type: 'introspection', clientId, clientSecret, … } or { type: 'custom', verify(token, facts) }",
    );
  }
  for (const key of ['scopesSupported', 'challengeScope'] as const) {
    const scopes = auth[key];
    if (scopes === undefined) continue;
    if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string' && isScopeToken(scope)))
      fail(`${key} must be a list of OAuth scopes (no spaces, quotes or backslashes)`);
    if (scopes.includes('offline_access')) fail(`${key} must not list offline_access (the specification says so)`);
  }
  const implied = auth.impliedScopes;
  if (implied !== undefined) {
    const scopes = (list: unknown) =>
      Array.isArray(list) && list.every((scope) => typeof scope === 'string' && isScopeToken(scope));
    if (typeof implied !== 'object' || implied === null || Array.isArray(implied))
      fail('impliedScopes must map a scope to the scopes it grants');
    for (const [scope, granted] of Object.entries(implied))
      if (!isScopeToken(scope) || !scopes(granted))
        fail(`impliedScopes.${scope} must be a list of OAuth scopes (no spaces, quotes or backslashes)`);
  }
  const metadata: ProtectedResourceMetadata = {
    resource: auth.resource,
    authorization_servers: [...servers],
    bearer_methods_supported: ['header'],
  };
  if (auth.scopesSupported) metadata.scopes_supported = [...auth.scopesSupported];
  if (auth.resourceName !== undefined) metadata.resource_name = auth.resourceName;
  if (auth.resourceDocumentation !== undefined) metadata.resource_documentation = auth.resourceDocumentation;
  const { pathForm, rootForm } = protectedResourceMetadataUrls(auth.resource);
  const paths = [new URL(pathForm).pathname];
  if (auth.rootMetadata !== false && rootForm !== pathForm) paths.push(new URL(rootForm).pathname);
  return { options: auth, metadata, metadataUrl: pathForm, metadataPaths: paths };
}

/** What checks the tokens of a resolved `auth` option: the JWT verifier (loading jose), introspection, or the app's. */
export function tokenVerifierOf(auth: McpAuthOptions): McpTokenVerifier {
  switch (auth.token.type) {
    case 'jwt':
      return new JwtTokenVerifier(auth.token, auth.resource, auth.authorizationServers);
    case 'introspection':
      return new IntrospectionTokenVerifier(auth.token, auth.resource, auth.authorizationServers);
    default:
      return auth.token;
  }
}

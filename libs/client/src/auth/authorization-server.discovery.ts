import { authorizationServerMetadataUrls } from '@conduit-mcp/core';
import type { AuthorizationServer } from 'oauth4webapi';
import type { GuardedFetch } from './guarded.fetch';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import type { OAuth4WebApi } from './oauth4webapi.loader';

/**
 * The metadata of the authorization server `issuer` (RFC 8414, else OpenID Connect discovery, in the order of
 * `authorizationServerMetadataUrls`): the first document found wins, and it must name `issuer` itself (RFC 8414
 * §3.3) — a document naming another issuer is refused, not skipped. An issuer that is not an http(s) URL without a
 * query or fragment (RFC 8414 §2) is refused before any request.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  fetchFn: GuardedFetch,
  oauth: OAuth4WebApi,
): Promise<AuthorizationServer> {
  if (!isIssuerIdentifier(issuer)) {
    throw new McpAuthorizationError(
      `The authorization server ${JSON.stringify(issuer)} is not an https URL without a query or fragment`,
    );
  }
  const found = await findAuthorizationServer(issuer, fetchFn, oauth);
  if (!found) throw new McpAuthorizationError(`The authorization server ${issuer} publishes no metadata`);
  return found;
}

// http passes here: the guard allows it for loopback only, and only when the options say so.
function isIssuerIdentifier(issuer: string): boolean {
  if (!URL.canParse(issuer) || /[?#]/.test(issuer)) return false;
  const { protocol } = new URL(issuer);
  return protocol === 'https:' || protocol === 'http:';
}

async function findAuthorizationServer(
  issuer: string,
  fetchFn: GuardedFetch,
  oauth: OAuth4WebApi,
): Promise<AuthorizationServer | undefined> {
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const response = await fetchFn(url, { headers: { accept: 'application/json' }, redirect: 'follow' });
    if (response.status !== 200) continue;
    try {
      return await oauth.processDiscoveryResponse(new URL(issuer), response);
    } catch (error) {
      throw new McpAuthorizationError(
        `The authorization server metadata at ${url} was refused: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  return undefined;
}

/**
 * The authorization server of a server without protected resource metadata (the 2025-03-26 revision): its own origin,
 * with the metadata there (`metadataFound`), else the default endpoints `/authorize`, `/token` and `/register`.
 */
export async function legacyAuthorizationServer(
  server: URL,
  fetchFn: GuardedFetch,
  oauth: OAuth4WebApi,
): Promise<{ as: AuthorizationServer; metadataFound: boolean }> {
  const found = await findAuthorizationServer(server.origin, fetchFn, oauth);
  if (found) return { as: found, metadataFound: true };
  const as: AuthorizationServer = {
    issuer: server.origin,
    authorization_endpoint: `${server.origin}/authorize`,
    token_endpoint: `${server.origin}/token`,
    registration_endpoint: `${server.origin}/register`,
  };
  return { as, metadataFound: false };
}

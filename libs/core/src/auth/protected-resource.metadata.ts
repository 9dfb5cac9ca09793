import { LOOPBACK_HOSTNAMES } from '../transport/loopback-hostnames';

/** The part of RFC 9728 §3 that places a resource's metadata: inserted between the host and the resource's path. */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * A protected resource metadata document (RFC 9728 §2) as an MCP server publishes it: the MCP specification makes
 * `authorization_servers` required (at least one).
 */
export interface ProtectedResourceMetadata {
  /** The resource identifier: the MCP endpoint's canonical URI, also the audience its tokens must name. */
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  resource_name?: string;
  resource_documentation?: string;
  resource_policy_uri?: string;
  resource_tos_uri?: string;
  [field: string]: unknown;
}

/**
 * What is wrong with `uri` as an MCP server's canonical resource URI (RFC 8707 §2, the specification's "Canonical
 * Server URI"): it must be an absolute `https` URI — `http` only on a loopback host — without a fragment, query or
 * credentials. An empty list means none.
 */
export function resourceUriProblems(uri: string): string[] {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return ['it is not an absolute URI'];
  }
  const problems: string[] = [];
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTNAMES.includes(url.hostname)))
    problems.push('it must use https (http only on a loopback host: localhost, 127.0.0.1, [::1])');
  if (uri.includes('#')) problems.push('it must not have a fragment');
  if (url.search) problems.push('it must not have a query');
  if (url.username || url.password) problems.push('it must not carry credentials');
  return problems;
}

/**
 * The URLs of the metadata of the resource `resource`: RFC 9728 §3.1's, the well-known path inserted between the host
 * and the resource's path (`https://host/mcp` → `https://host/.well-known/oauth-protected-resource/mcp`), and the root
 * form clients try next (`https://host/.well-known/oauth-protected-resource`). For a resource without a path both are
 * the root form.
 */
export function protectedResourceMetadataUrls(resource: string): { pathForm: string; rootForm: string } {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return {
    pathForm: `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}`,
    rootForm: `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}`,
  };
}

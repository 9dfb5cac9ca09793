import { ProtectedResourceMetadata, protectedResourceMetadataUrls } from '@conduit-mcp/core';
import type { GuardedFetch } from './guarded.fetch';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import { readJsonDocument } from './json-document.reader';

/**
 * The protected resource metadata (RFC 9728) of the MCP server at `server`: from the URL its challenge named
 * (`resource_metadata`; ignored when it is not an absolute URL), else the well-known URL with the server's path, else
 * the one at the root. `undefined` when none answers (a server of the 2025-03-26 revision, whose own origin is its
 * authorization server). A document must name at least one authorization server and, as its `resource`, this server:
 * its origin, and its path or a parent of it; anything else is refused, before any authorization request.
 */
export async function discoverResourceMetadata(
  server: URL,
  fetchFn: GuardedFetch,
  named?: string,
): Promise<ProtectedResourceMetadata | undefined> {
  const { pathForm, rootForm } = protectedResourceMetadataUrls(server.origin + server.pathname);
  const first = named !== undefined && URL.canParse(named) ? named : undefined;
  for (const url of new Set([first, pathForm, rootForm].filter((url): url is string => !!url))) {
    const document = await readJsonDocument(fetchFn, url);
    if (!document) continue;
    const servers = document.authorization_servers;
    if (
      typeof document.resource !== 'string' ||
      !Array.isArray(servers) ||
      !servers.length ||
      !servers.every((issuer) => typeof issuer === 'string')
    ) {
      throw new McpAuthorizationError(
        `The protected resource metadata at ${url} names no resource or no authorization server`,
      );
    }
    if (!coversServer(document.resource, server)) {
      throw new McpAuthorizationError(
        `The protected resource metadata at ${url} is for ${JSON.stringify(document.resource)}, not ${server.href}`,
      );
    }
    return document as ProtectedResourceMetadata;
  }
  return undefined;
}

/**
 * Whether the resource `resource` is the server at `server`: same origin, and the same path or a parent of it. The
 * string itself is what the token request will name, so it must be a URI as written: no query or fragment, even an
 * empty one, no credentials, no whitespace (which URL parsing would silently drop).
 */
export function coversServer(resource: string, server: URL): boolean {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.origin !== server.origin || /[\s?#]/.test(resource) || url.username || url.password) return false;
  const path = url.pathname.replace(/\/$/, '');
  const serverPath = server.pathname.replace(/\/$/, '');
  return serverPath === path || serverPath.startsWith(`${path}/`);
}

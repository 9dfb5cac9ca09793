import { ErrorCode, McpError, authorizationServerMetadataUrls, readBoundedResponse } from '@conduit-mcp/core';

/** The largest metadata document read; an authorization server's is a few kilobytes. */
const MAX_METADATA_BYTES = 64 * 1024;
const TIMEOUT_MS = 5_000;

/** The URLs of an authorization server's metadata a resource server reads. */
export type IssuerEndpoint = 'jwks_uri' | 'introspection_endpoint';

/**
 * An authorization server's metadata, as far as a resource server needs it (its `jwks_uri`, its
 * `introspection_endpoint`), from the well-known URLs in the order clients try them (`authorizationServerMetadataUrls`). A document must name the issuer it was asked for (RFC 8414 §3.3); reads
 * are bounded in time and size, redirects refused. A failure is thrown.
 */
export class IssuerMetadata {
  jwksUriOf(issuer: string): Promise<string> {
    return this.endpointOf(issuer, 'jwks_uri');
  }

  async endpointOf(issuer: string, field: IssuerEndpoint): Promise<string> {
    const failures: string[] = [];
    for (const url of authorizationServerMetadataUrls(issuer)) {
      try {
        const document = await fetchJson(url);
        if (document.issuer !== issuer) {
          failures.push(`${url}: names issuer ${JSON.stringify(document.issuer)}`);
          continue;
        }
        const endpoint = document[field];
        if (typeof endpoint !== 'string') {
          failures.push(`${url}: no ${field}`);
          continue;
        }
        return endpoint;
      } catch (error) {
        failures.push(`${url}: ${(error as Error).message}`);
      }
    }
    throw new McpError(ErrorCode.InternalError, `No usable metadata for the issuer ${issuer} (${failures.join('; ')})`);
  }
}

async function fetchJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    redirect: 'manual',
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status}`);
  }
  const text = (
    await readBoundedResponse(response, MAX_METADATA_BYTES, () => new Error('document too large'))
  ).toString('utf8');
  const document: unknown = JSON.parse(text);
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new Error('not a JSON object');
  return document as Record<string, unknown>;
}

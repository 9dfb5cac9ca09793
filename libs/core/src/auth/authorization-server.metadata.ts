/**
 * Where an authorization server's metadata may be, in the order the MCP specification has clients try them: for an
 * issuer with a path (`https://auth.example.com/tenant1`), RFC 8414's form (the well-known path inserted before the
 * issuer's path), OpenID Connect discovery's inserted form, then its appended form; for an issuer without a path,
 * RFC 8414's then OpenID Connect's at the root.
 *
 * @example
 * ```ts
 * authorizationServerMetadataUrls('https://auth.example.com/tenant1');
 * // ['https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
 * //  'https://auth.example.com/.well-known/openid-configuration/tenant1',
 * //  'https://auth.example.com/tenant1/.well-known/openid-configuration']
 * ```
 */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  if (!path) {
    return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

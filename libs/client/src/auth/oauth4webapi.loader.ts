import { loadOptionalPackage } from '@conduit-mcp/core';

/** What the OAuth client uses of `oauth4webapi`. */
export type OAuth4WebApi = typeof import('oauth4webapi');

let loaded: OAuth4WebApi | undefined;

/**
 * `oauth4webapi`, an optional peer of the client, loaded when a server's `auth` is an OAuth configuration: the error
 * names it when it is missing. It is ES modules only: CommonJS loads it through `require(esm)`, which Node 20 has from
 * 20.19 on.
 */
export function loadOAuth4WebApi(): OAuth4WebApi {
  return (loaded ??= loadOptionalPackage('oauth4webapi', "OAuth authorization (a server's transport.auth)", () => {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require('oauth4webapi') as OAuth4WebApi;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_REQUIRE_ESM')
        throw new Error('OAuth authorization needs Node 20.19 or later (oauth4webapi is loaded with require(esm))', {
          cause: error,
        });
      throw error;
    }
  }));
}

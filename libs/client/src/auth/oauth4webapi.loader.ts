import { loadOptionalPackage } from '@conduit-mcp/core';

/** What the OAuth client uses of `oauth4webapi`. */
export type OAuth4WebApi = typeof import('oauth4webapi');

let loaded: OAuth4WebApi | undefined;

/**
 * `oauth4webapi`, an optional peer of the client, loaded when a server's `auth` is an OAuth configuration: the error
 * names it when it is missing (or, oauth4webapi being ES modules only, when Node is older than 20.19).
 */
export function loadOAuth4WebApi(): OAuth4WebApi {
  return (loaded ??= loadOptionalPackage(
    'oauth4webapi',
    "OAuth authorization (a server's transport.auth)",
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    () => require('oauth4webapi') as OAuth4WebApi,
  ));
}

import { loadOptionalPackage } from '@conduit-mcp/core';

/** What the JWT verifier uses of `jose`. */
export type Jose = typeof import('jose');

/**
 * `jose`, an optional peer of the server, loaded when `auth` verifies JWT access tokens: a start-up error names it when
 * it is missing (or, jose being ES modules only, when Node is older than 20.19).
 */
export function loadJose(): Jose {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return loadOptionalPackage('jose', 'JWT access tokens (McpModule.forRoot({ auth }))', () => require('jose') as Jose);
}

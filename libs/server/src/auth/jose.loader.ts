import { loadOptionalPackage } from '@conduit-mcp/core';

/** What the JWT verifier uses of `jose`. */
export type Jose = typeof import('jose');

/**
 * `jose`, an optional peer of the server, loaded when `auth` verifies JWT access tokens: a start-up error names it when
 * it is missing. jose is ES modules only: CommonJS loads it through `require(esm)`, which Node 20 has from 20.19 on.
 */
export function loadJose(): Jose {
  return loadOptionalPackage('jose', 'JWT access tokens (McpModule.forRoot({ auth }))', () => {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require('jose') as Jose;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_REQUIRE_ESM')
        throw new Error('JWT access tokens need Node 20.19 or later (jose is loaded with require(esm))', {
          cause: error,
        });
      throw error;
    }
  });
}

/** Options of {@link loadOptionalPackage}. */
export interface OptionalPackageOptions {
  /** The package belongs in devDependencies (a test helper): the install hint says `npm install --save-dev`. */
  dev?: boolean;
}

/**
 * Loads an optional (peer) package through `load`, a `require` written by the caller so that its own module
 * resolution, and any bundler, sees the package name. When that package is not installed, throws an Error naming
 * what needs it and how to install it. Anything else is rethrown as it is: the package present but one of its own
 * dependencies missing, or the package failing while it loads — except that a package shipping ES modules only, which
 * CommonJS loads through `require(esm)` (Node 20.19 and later), fails on older Node with a message saying so.
 *
 * @example
 * const { Test } = loadOptionalPackage('@nestjs/testing', 'createMcpTestingModule', () =>
 *   require('@nestjs/testing'),
 * );
 * // when it is missing: createMcpTestingModule needs the package "@nestjs/testing": npm install @nestjs/testing
 */
export function loadOptionalPackage<T>(
  name: string,
  purpose: string,
  load: () => T,
  options: OptionalPackageOptions = {},
): T {
  try {
    return load();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_REQUIRE_ESM') {
      throw new Error(
        `${purpose} needs Node 20.19 or later: "${name}" ships ES modules only, loaded with require(esm)`,
        {
          cause: error,
        },
      );
    }
    if (!isMissing(error, name)) throw error;
    const install = options.dev ? `npm install --save-dev ${name}` : `npm install ${name}`;
    throw new Error(`${purpose} needs the package "${name}": ${install}`, { cause: error });
  }
}

// Node says "Cannot find module '<name>'" (CommonJS) or "Cannot find package '<name>'" (ESM), and Jest's resolver the
// former; a subpath of the package counts, a package whose name merely starts the same does not. No `instanceof
// Error`: Jest's resolver throws errors of another realm.
function isMissing(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if ((code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') || typeof message !== 'string') return false;
  const quoted = /Cannot find (?:module|package) '([^']+)'/.exec(message)?.[1];
  return quoted === name || quoted?.startsWith(`${name}/`) === true;
}

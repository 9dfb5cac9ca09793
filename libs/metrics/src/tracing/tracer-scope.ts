import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The instrumentation scope of the spans: this package's name and version. */
export interface TracerScope {
  name: string;
  version?: string;
}

const NAME = '@conduit-mcp/metrics';

/**
 * This package's name and version, the version read from its package.json (two levels up from this file in src/ and
 * in dist/ alike); the name alone when that file is not there (a bundle) or is not this package's.
 */
export function tracerScope(): TracerScope {
  try {
    const manifest: unknown = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));
    const { name, version } = (manifest ?? {}) as { name?: unknown; version?: unknown };
    if (name === NAME && typeof version === 'string') return { name: NAME, version };
  } catch {
    // No package.json there: the name alone.
  }
  return { name: NAME };
}

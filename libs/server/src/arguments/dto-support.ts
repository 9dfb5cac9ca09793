import { loadOptionalPackage } from '@conduit-mcp/core';
import type * as DtoSupport from './dto-input.validator';

/** The packages behind DTO classes as tool inputs: optional peers of this package, needed only by such tools. */
export const DTO_PACKAGES = ['class-validator', 'class-transformer', 'class-validator-jsonschema'] as const;

const PURPOSE = `A tool whose input is a DTO class (it uses ${DTO_PACKAGES.join(', ')})`;

/**
 * DTO support — class-validator, class-transformer and the JSON Schema generator, a noticeable start-up cost — loaded
 * the first time a tool declares a DTO class, so that an app of JSON Schema tools never pays for it, nor needs those
 * packages installed. Without one of them, the start-up fails naming the package to install.
 */
export function dtoSupport(): typeof DtoSupport {
  // Each package's absence is told by name; the innermost load is the one require of them all.
  let load = (): typeof DtoSupport => require('./dto-input.validator') as typeof DtoSupport; // eslint-disable-line @typescript-eslint/no-require-imports
  for (const name of DTO_PACKAGES) {
    const inner = load;
    load = () => loadOptionalPackage(name, PURPOSE, inner);
  }
  return load();
}

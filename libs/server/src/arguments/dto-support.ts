import type * as DtoSupport from './dto-input.validator';

/**
 * DTO support — class-validator, class-transformer and the JSON Schema generator, a noticeable start-up cost — loaded
 * the first time a tool declares a DTO class, so that an app of JSON Schema tools never pays for it.
 */
export function dtoSupport(): typeof DtoSupport {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./dto-input.validator') as typeof DtoSupport;
}

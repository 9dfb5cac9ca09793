/** The status Terminus reads from a health indicator's result. */
export type HealthStatus = 'up' | 'down';

/**
 * A health indicator's result as Terminus reads it (assignable to its `HealthIndicatorResult`), typed here so that
 * the declarations of the MCP libraries do not need `@nestjs/terminus` installed.
 */
export type McpHealthIndicatorResult<Key extends string = string> = Record<
  Key,
  Record<string, unknown> & { status: HealthStatus }
>;

/**
 * A Terminus health indicator result, `{ [key]: { ...details, status } }`: the shape `HealthIndicatorService` builds,
 * made here so that the MCP libraries need `@nestjs/terminus` only for its types (loading it costs start-up time in
 * every app, with or without a health route).
 */
export function healthIndicatorResult<Key extends string>(
  key: Key,
  up: boolean,
  details: Record<string, unknown>,
): McpHealthIndicatorResult<Key> {
  if (Object.prototype.hasOwnProperty.call(details, 'status')) {
    throw new Error('"status" is a reserved key and cannot be used in health details');
  }
  const status: HealthStatus = up ? 'up' : 'down';
  return { [key]: Object.assign({}, details, { status }) } as McpHealthIndicatorResult<Key>;
}

/** A token request's `extra` parameters with `resource` (RFC 8707), and `scope` when there are scopes. */
export function resourceParameters(
  resource: string,
  scope: string[],
  extra: Record<string, string> = {},
): Record<string, string> {
  const parameters: Record<string, string> = { ...extra, resource };
  if (scope.length) parameters.scope = scope.join(' ');
  return parameters;
}

/** True for a non-null, non-array object: the shape of a JSON object (params, results, schemas). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { isJsonObject } from '@conduit-mcp/core';
import type { GuardedFetch } from './guarded.fetch';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';

/**
 * A metadata document (a JSON object) read with a GET through the guarded fetch, redirects followed (each one
 * re-checked by the guard). `undefined` when the server has none there (an HTTP error status); a 200 whose body is not
 * a JSON object is an error.
 */
export async function readJsonDocument(
  fetchFn: GuardedFetch,
  url: string,
): Promise<Record<string, unknown> | undefined> {
  const response = await fetchFn(url, { headers: { accept: 'application/json' }, redirect: 'follow' });
  if (response.status !== 200) return undefined;
  let document: unknown;
  try {
    document = await response.json();
  } catch {
    document = undefined;
  }
  if (!isJsonObject(document)) throw new McpAuthorizationError(`${url} did not answer a JSON object`);
  return document;
}

import { fileURLToPath, pathToFileURL } from 'node:url';
import { ErrorCode, ListRootsResult, Root, sanitizeText, isJsonObject } from '@conduit-mcp/core';
import { Checked, accepted, refused } from './checked';

/**
 * Keeps the roots that may be sent to a server: `file://` URIs on the local host (empty host or
 * `localhost`), normalized to `file:///…` with `.` and `..` (also percent-encoded) resolved; anything
 * else is dropped silently. Names are sanitized. A result without a `roots` array is -32603.
 */
export function filterRoots(result: unknown): Checked<ListRootsResult> {
  if (!isJsonObject(result) || !Array.isArray(result.roots)) {
    return refused(ErrorCode.InternalError, 'roots result must have a roots array');
  }
  const roots: Root[] = [];
  for (const candidate of result.roots) {
    const root = localRoot(candidate);
    if (root) roots.push(root);
  }
  return accepted(isJsonObject(result._meta) ? { roots, _meta: result._meta } : { roots });
}

function localRoot(candidate: unknown): Root | undefined {
  if (!isJsonObject(candidate) || typeof candidate.uri !== 'string') return undefined;
  const uri = localFileUri(candidate.uri);
  if (!uri) return undefined;
  const root: Root = { uri };
  const name = sanitizeText(candidate.name);
  if (name) root.name = name;
  if (isJsonObject(candidate._meta)) root._meta = candidate._meta;
  return root;
}

/** The normalized `file:///…` form of a local file URI, or undefined. */
function localFileUri(text: string): string | undefined {
  try {
    // The URL parser resolves `.`/`..` (also `%2e` forms) and empties a `localhost` host; fileURLToPath
    // refuses encoded slashes; the path round trip drops query and fragment.
    const url = new URL(text);
    if (url.protocol !== 'file:' || url.hostname !== '') return undefined;
    const path = fileURLToPath(url);
    if (path.includes('\0')) return undefined;
    return pathToFileURL(path).href;
  } catch {
    return undefined;
  }
}

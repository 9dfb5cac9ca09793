/** Which server serves each HTTP path of one app (keyed by the app's HTTP server, so apps never share claims). */
const claims = new WeakMap<object, Map<string, string>>();

/**
 * Claims `paths` on `host` for the server `name`, or throws naming both servers when one of them is already served
 * by another server of the same app (two servers would otherwise silently share `/sse` and `/message`), or when a
 * server names one path twice. Returns the release function.
 */
export function claimHttpPaths(host: object, name: string, paths: readonly string[]): () => void {
  const claimed = claims.get(host) ?? new Map<string, string>();
  const seen = new Set<string>();
  for (const path of paths) {
    if (seen.has(path)) {
      throw new Error(
        `MCP server "${name}" uses the HTTP path ${path} twice: give http.path and http.legacySse distinct paths`,
      );
    }
    seen.add(path);
    const owner = claimed.get(path);
    if (owner !== undefined) {
      throw new Error(
        `MCP servers "${owner}" and "${name}" both serve the HTTP path ${path}: give one of them other paths (http.path, http.legacySse)`,
      );
    }
  }
  for (const path of paths) claimed.set(path, name);
  claims.set(host, claimed);
  return () => {
    for (const path of paths) if (claimed.get(path) === name) claimed.delete(path);
  };
}

/** Where the Streamable HTTP endpoint is served: ahead of the router on the HTTP server, or as framework routes. */
export type McpHttpMount = 'server' | 'express' | 'fastify';

/**
 * The mount to use on an app whose HTTP adapter is `adapterType` (`express`, `fastify`, or another): the one asked
 * for, or `server` (which fits any adapter built on a Node HTTP server). A framework mount on another framework is
 * refused at start-up, naming the server, instead of failing at the first request.
 */
export function chooseMount(
  requested: McpHttpMount | undefined,
  adapterType: string,
  serverName: string,
): McpHttpMount {
  const mount = requested ?? 'server';
  if (mount !== 'server' && mount !== adapterType) {
    throw new Error(
      `MCP server "${serverName}": http.mount '${mount}' needs the ${mount === 'express' ? 'Express' : 'Fastify'} adapter, but the app runs on ${adapterType}: use mount '${adapterType === 'express' || adapterType === 'fastify' ? adapterType : 'server'}' or leave it out`,
    );
  }
  return mount;
}

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { McpHttpRoute } from './mount.types';
import { ErrorCode } from '@conduit-mcp/core';
import { sendError } from '../http-response.util';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

interface ServerMount {
  routes: McpHttpRoute[];
  // The server's own `request` listeners (the Express app), run for everything no route takes.
  fallThrough: RequestListener[];
  front: RequestListener;
}

const mounts = new WeakMap<Server, ServerMount>();

/**
 * Puts `route` in front of the server's `request` listeners (the Express app): requests it takes never reach
 * Express; the rest fall through unchanged. Several routes may be mounted on one server (several MCP servers);
 * they are tried in mounting order. Returns an unmount function; the original listeners are restored once the
 * last route is unmounted. Listeners added to the server after the first mount are not wrapped.
 */
export function mountOnHttpServer(server: Server, route: McpHttpRoute): () => void {
  let mount = mounts.get(server);
  if (!mount) {
    const fallThrough = server.listeners('request') as RequestListener[];
    const routes: McpHttpRoute[] = [];
    const front: RequestListener = (req, res) => {
      try {
        if (routes.some((candidate) => candidate(req, res))) return;
      } catch {
        return sendError(res, 500, 'Internal error', { code: ErrorCode.InternalError });
      }
      for (const listener of fallThrough) listener.call(server, req, res);
    };
    server.removeAllListeners('request');
    server.on('request', front);
    mount = { routes, fallThrough, front };
    mounts.set(server, mount);
  }
  const { routes } = mount;
  routes.push(route);
  let mounted = true;
  return () => {
    if (!mounted) return;
    mounted = false;
    routes.splice(routes.indexOf(route), 1);
    if (routes.length > 0 || mounts.get(server) !== mount) return;
    server.removeListener('request', mount.front);
    for (const listener of mount.fallThrough) server.on('request', listener);
    mounts.delete(server);
  };
}

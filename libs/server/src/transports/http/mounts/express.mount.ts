import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpHttpServe } from './mount.types';

/** The part of an Express application {@link mountOnExpress} uses. */
export interface ExpressAppLike {
  all(path: string, handler: (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => void): unknown;
}

/**
 * Registers `serve` as an ordinary Express route (`app.all`) for each path, so the app's middleware sees MCP
 * requests. A body an Express body parser already read is passed on as `parsedBody`.
 */
export function mountOnExpress(app: ExpressAppLike, paths: readonly string[], serve: McpHttpServe): void {
  for (const path of new Set(paths)) {
    app.all(path, (req, res) => serve(req, res, req.readableEnded && req.body !== undefined ? req.body : undefined));
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '@conduit-mcp/core';
import { PARSE_ERROR_MESSAGE, tooLargeMessage } from '../http-body.reader';
import { sendError } from '../http-response.util';
import { McpHttpServe } from './mount.types';

type ExpressRequest = IncomingMessage & { body?: unknown; originalUrl?: string };
type ExpressErrorHandler = (
  error: unknown,
  req: ExpressRequest,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** The part of an Express application {@link mountOnExpress} uses. */
export interface ExpressAppLike {
  all(path: string, handler: (req: ExpressRequest, res: ServerResponse) => void): unknown;
  use(path: string, handler: ExpressErrorHandler): unknown;
}

/**
 * Registers `serve` as an ordinary Express route (`app.all`) for each path, so the app's middleware sees MCP
 * requests. A body an Express body parser already read is passed on as `parsedBody`; one it refused (too large, not
 * JSON) is answered as the transport answers its own: a JSON-RPC error, not the app's error page.
 */
export function mountOnExpress(app: ExpressAppLike, paths: readonly string[], serve: McpHttpServe): void {
  const served = new Set(paths);
  for (const path of served) {
    app.all(path, (req, res) => serve(req, res, req.readableEnded && req.body !== undefined ? req.body : undefined));
    app.use(path, (error, req, res, next) => {
      if (!served.has((req.originalUrl ?? req.url ?? '/').split('?', 1)[0])) return next(error);
      const refusal = bodyParserRefusal(error);
      if (!refusal) return next(error);
      sendError(res, refusal.status, refusal.message, { code: refusal.code });
    });
  }
}

interface BodyParserError {
  status?: unknown;
  type?: unknown;
  limit?: unknown;
}

// body-parser's errors (http-errors with a `type`) that the transport answers itself. body-parser reads a refused body
// to its end before it reports the error (within the server's request timeout), so the client can read the answer.
function bodyParserRefusal(error: unknown): { status: number; code: number; message: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, type, limit } = error as BodyParserError;
  if (status === 413 && type === 'entity.too.large')
    return {
      status: 413,
      code: ErrorCode.ServerError,
      message: typeof limit === 'number' ? tooLargeMessage(limit) : 'Payload Too Large',
    };
  if (status === 400 && type === 'entity.parse.failed')
    return { status: 400, code: ErrorCode.ParseError, message: PARSE_ERROR_MESSAGE };
  return undefined;
}

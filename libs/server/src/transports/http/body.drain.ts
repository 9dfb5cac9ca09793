import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { ErrorCode, errorResponse, serializeMessage } from '@conduit-mcp/core';
import { headerValue } from './http-request.util';
import { sendError } from './http-response.util';

/** How much of a refused body is read and thrown away, and for how long, before the connection is cut. */
export interface BodyDrainLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** What a refusal carries besides its status and message: the JSON-RPC code (default -32000) and headers. */
export interface RefusalExtras {
  code?: number;
  headers?: OutgoingHttpHeaders;
}

/**
 * Refuses a request whose body was not read to its end (413, or an authentication refusal before the body), so that
 * the client can read the refusal. Closing at
 * once would reset the connection under a client still sending, which then reports a broken pipe or a reset instead
 * of the status. So the whole answer is written at once (a client that reads while it sends has it), the rest of the
 * body is read and thrown away, and the response ends — closing the connection — once the body has ended. A body with
 * more than `maxBytes` left, or not over within `timeoutMs`, has its connection cut: a client cannot make the server
 * read without end. `read`: the bytes of the body already read.
 */
export function refuseUnreadBody(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  read: number,
  limits: BodyDrainLimits,
  extras: RefusalExtras = {},
): void {
  const code = extras.code ?? ErrorCode.ServerError;
  const headers = { ...extras.headers, Connection: 'close' };
  if (req.readableEnded || req.destroyed) return sendError(res, status, message, { code, headers });
  const declared = Number(headerValue(req, 'content-length'));
  if (declared - read > limits.maxBytes || limits.maxBytes === 0 || limits.timeoutMs === 0)
    return sendError(res, status, message, { code, headers });
  if (res.headersSent || res.destroyed) return void res.destroy();

  const text = serializeMessage(errorResponse(null, { code, message }));
  try {
    res.writeHead(status, {
      ...headers,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
    });
    res.write(text);
  } catch {
    return void res.destroy();
  }
  let left = limits.maxBytes;
  const cut = () => {
    stop();
    res.destroy();
  };
  const onData = (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) cut();
  };
  const finish = () => {
    stop();
    if (!res.destroyed) res.end();
  };
  const timer = setTimeout(cut, limits.timeoutMs);
  const stop = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', finish);
    req.off('close', finish);
  };
  req.on('data', onData);
  req.on('end', finish);
  req.on('close', finish);
  req.resume();
}

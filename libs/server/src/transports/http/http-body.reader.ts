import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, parseJson } from '@conduit-mcp/core';
import { headerValue } from './http-request.util';
import { sendError } from './http-response.util';

/** A parsed body, or why there is none: the HTTP status and JSON-RPC error to answer with, or a client gone. */
export type JsonBody =
  | { ok: true; value: unknown }
  | { ok: false; status: 400 | 413; code: number; message: string }
  | { ok: false; aborted: true };

/**
 * Reads and parses a JSON request body of at most `limit` bytes. A declared or actual size past the limit stops
 * reading at once and yields 413; invalid JSON yields 400 with -32700. `parsed` (a body an Express body parser
 * already read) is used instead of the stream; text or a Buffer there is parsed as JSON.
 */
export function readJsonBody(req: IncomingMessage, limit: number, parsed?: unknown): Promise<JsonBody> {
  if (parsed !== undefined) {
    return Promise.resolve(
      typeof parsed === 'string' || Buffer.isBuffer(parsed) ? parse(parsed.toString()) : { ok: true, value: parsed },
    );
  }
  const declared = Number(headerValue(req, 'content-length'));
  if (declared > limit) return Promise.resolve(tooLarge(limit));
  // Something else already consumed the stream without leaving a parsed body.
  if (req.readableEnded) return Promise.resolve(parse(''));

  // No listener is removed once the body is read: `settled` ignores what comes after, and the listeners go with the
  // request. The caller keeps an 'error' listener on `req` (a failed request also emits 'close', which settles).
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: JsonBody) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        req.pause();
        settle(tooLarge(limit));
      } else chunks.push(chunk);
    });
    req.on('end', () =>
      settle(parse(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'))),
    );
    req.on('close', () => settle({ ok: false, aborted: true }));
  });
}

function parse(text: string): JsonBody {
  const result = parseJson(text);
  return result.ok
    ? { ok: true, value: result.value }
    : { ok: false, status: 400, code: ErrorCode.ParseError, message: 'Parse error: the body is not valid JSON' };
}

function tooLarge(limit: number): JsonBody {
  return {
    ok: false,
    status: 413,
    code: ErrorCode.ServerError,
    message: `Payload Too Large: the body limit is ${limit} bytes`,
  };
}

/** Answers a body that could not be read: the client went away (the socket is dropped), or its 4xx error. */
export function answerBodyFailure(res: ServerResponse, body: Exclude<JsonBody, { ok: true }>): void {
  if ('aborted' in body) return void res.destroy();
  // A body over the limit was not read to its end: the connection cannot carry another request.
  sendError(res, body.status, body.message, {
    code: body.code,
    headers: body.status === 413 ? { Connection: 'close' } : {},
  });
}

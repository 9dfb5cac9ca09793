import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, parseJson } from '@conduit-mcp/core';
import { BodyDrainLimits, refuseUnreadBody } from './body.drain';
import { headerValue } from './http-request.util';
import { sendError } from './http-response.util';

/**
 * A parsed body, or why there is none: the HTTP status and JSON-RPC error to answer with (and, for 413, how many bytes
 * of the body were read), or a client gone.
 */
export type JsonBody =
  | { ok: true; value: unknown }
  | { ok: false; status: 400; code: number; message: string }
  | { ok: false; status: 413; code: number; message: string; read: number }
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
  if (declared > limit) return Promise.resolve(tooLarge(limit, 0));
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
        settle(tooLarge(limit, size));
      } else chunks.push(chunk);
    });
    req.on('end', () =>
      settle(parse(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'))),
    );
    req.on('close', () => settle({ ok: false, aborted: true }));
  });
}

/** The message of a body that is not JSON (also used for one an Express body parser could not parse). */
export const PARSE_ERROR_MESSAGE = 'Parse error: the body is not valid JSON';

function parse(text: string): JsonBody {
  const result = parseJson(text);
  return result.ok
    ? { ok: true, value: result.value }
    : { ok: false, status: 400, code: ErrorCode.ParseError, message: PARSE_ERROR_MESSAGE };
}

/** The message of a 413 (also used for a body an Express body parser refused). */
export function tooLargeMessage(limit: number): string {
  return `Payload Too Large: the body limit is ${limit} bytes`;
}

function tooLarge(limit: number, read: number): JsonBody {
  return { ok: false, status: 413, code: ErrorCode.ServerError, message: tooLargeMessage(limit), read };
}

/**
 * Answers a body that could not be read: the client went away (the socket is dropped), or its 4xx error. A 413 comes
 * before the body was read to its end: the rest is drained within `drain` (see {@link refuseUnreadBody}).
 */
export function answerBodyFailure(
  req: IncomingMessage,
  res: ServerResponse,
  body: Exclude<JsonBody, { ok: true }>,
  drain: BodyDrainLimits,
): void {
  if ('aborted' in body) return void res.destroy();
  if (body.status === 413) return refuseUnreadBody(req, res, 413, body.message, body.read, drain);
  sendError(res, body.status, body.message, { code: body.code });
}

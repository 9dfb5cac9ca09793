import { HttpException, HttpStatus } from '@nestjs/common';
import { ErrorCode, McpError, McpErrorHttpHint, sanitizeText } from '@conduit-mcp/core';
import { McpInputRequired } from '../eras/modern/mrtr/input-required.signal';

/**
 * Turns whatever a handler threw into an error fit for the wire. McpErrors pass as they are; Nest HTTP exceptions
 * map by status, with the exception's message (400 → -32602, 404 → `notFound(message)`, other 4xx → -32000);
 * anything else, 5xx included, becomes -32603 with no internals (Nest's exception handler has already logged it).
 * An HttpException whose `cause` is an McpError maps to that McpError. A 401, 403 or 429 also carries an HTTP hint for its status (the `http` of an McpError), so that a guard's
 * refusal, `ThrottlerGuard`'s included, reaches an HTTP client as what it is — except the `ForbiddenException` Nest
 * throws for a guard that answered `false`, which stays a JSON-RPC error alone (what SDK clients read as the
 * server's answer, where an HTTP 403 would be a transport failure to them).
 * (`tools/call` answers a 4xx exception thrown past the guards with a tool error instead: see `ToolMethods`.)
 */
export function toMcpError(
  error: unknown,
  notFound: (message: string) => McpError = (message) => new McpError(ErrorCode.InvalidParams, message),
): McpError | McpInputRequired {
  // A modern-era question stops the handler; it passes unchanged, for the dispatcher to answer input_required.
  if (error instanceof McpError || error instanceof McpInputRequired) return error;
  // A guard refuses with an HttpException (Nest logs anything else it throws); one caused by an McpError means it.
  if (error instanceof HttpException && error.cause instanceof McpError) return error.cause;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const message = httpErrorMessage(error);
    if (status === HttpStatus.BAD_REQUEST) return new McpError(ErrorCode.InvalidParams, message);
    if (status === HttpStatus.NOT_FOUND) return notFound(message);
    if (status < 500) return clientError(status, message, error);
  }
  return new McpError(ErrorCode.InternalError, 'Internal error');
}

// Statuses a client acts on (authorize, stop, wait): worth the HTTP status on top of the JSON-RPC error.
const HINTED_STATUSES = new Set<number>([HttpStatus.UNAUTHORIZED, HttpStatus.FORBIDDEN, HttpStatus.TOO_MANY_REQUESTS]);

// -32000 with the status; for 401, 403 and 429 the same status over HTTP, and a 429's wait, when its response names
// one, both in `data` (stdio and streamed replies carry no header) and as `Retry-After`.
function clientError(status: number, message: string, error: HttpException): McpError {
  const retryAfter = status === HttpStatus.TOO_MANY_REQUESTS ? retryAfterOf(error) : undefined;
  const data = retryAfter === undefined ? { status } : { status, retryAfter };
  if (!HINTED_STATUSES.has(status) || isGuardAnsweringFalse(error))
    return new McpError(ErrorCode.ServerError, message, data);
  const http: McpErrorHttpHint =
    retryAfter === undefined ? { status } : { status, headers: { 'Retry-After': String(retryAfter) } };
  return new McpError(ErrorCode.ServerError, message, data, { http });
}

// What Nest throws when a guard answers false (its FORBIDDEN_MESSAGE; the pipeline's fast path throws the same): only
// its message tells it from a ForbiddenException a guard throws on purpose.
function isGuardAnsweringFalse(error: HttpException): boolean {
  return error.getStatus() === HttpStatus.FORBIDDEN && error.message === 'Forbidden resource';
}

/**
 * How many seconds a 429 asks the client to wait: a non-negative number `retryAfter` in the exception's response
 * object (`new HttpException({ message, retryAfter: 30 }, 429)`), rounded up; undefined when it names none, as
 * `ThrottlerException` does not.
 */
function retryAfterOf(error: HttpException): number | undefined {
  const response = error.getResponse();
  const seconds =
    typeof response === 'object' && response !== null ? (response as { retryAfter?: unknown }).retryAfter : undefined;
  if (typeof seconds !== 'number' || !(seconds >= 0)) return undefined;
  // `Retry-After` takes whole seconds in plain digits: no fraction, no exponent.
  const whole = Math.ceil(seconds);
  return Number.isSafeInteger(whole) ? whole : undefined;
}

/** Whether `error` is a Nest HTTP exception with a 4xx status: the caller's mistake, which it may be told about. */
export function isClientHttpError(error: unknown): error is HttpException {
  if (!(error instanceof HttpException)) return false;
  const status = error.getStatus();
  return status >= 400 && status < 500;
}

/**
 * The message of a Nest HTTP exception, safe to send: its response's `message` (an array of them joined with `; `),
 * else the exception's own, sanitized and clamped to `maxChars`.
 */
export function httpErrorMessage(error: HttpException, maxChars = 512): string {
  return sanitizeText(httpMessage(error), maxChars);
}

function httpMessage(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown } | null)?.message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : error.message;
}

/** What goes on the wire for a failure: its McpError, or -32603 for anything else. */
export function toWireError(error: unknown): McpError {
  const mapped = toMcpError(error);
  return mapped instanceof McpError ? mapped : new McpError(ErrorCode.InternalError, 'Internal error');
}

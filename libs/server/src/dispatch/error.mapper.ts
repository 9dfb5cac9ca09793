import { HttpException, HttpStatus } from '@nestjs/common';
import { ErrorCode, McpError, sanitizeText } from '@conduit-mcp/core';
import { McpInputRequired } from '../eras/modern/mrtr/input-required.signal';

/**
 * Turns whatever a handler threw into an error fit for the wire. McpErrors pass as they are; Nest HTTP exceptions
 * map by status, with the exception's message (400 → -32602, 404 → `notFound(message)`, other 4xx → -32000);
 * anything else, 5xx included, becomes -32603 with no internals (Nest's exception handler has already logged it).
 * (`tools/call` answers a 4xx exception thrown past the guards with a tool error instead: see `ToolMethods`.)
 */
export function toMcpError(
  error: unknown,
  notFound: (message: string) => McpError = (message) => new McpError(ErrorCode.InvalidParams, message),
): McpError | McpInputRequired {
  // A modern-era question stops the handler; it passes unchanged, for the dispatcher to answer input_required.
  if (error instanceof McpError || error instanceof McpInputRequired) return error;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const message = httpErrorMessage(error);
    if (status === HttpStatus.BAD_REQUEST) return new McpError(ErrorCode.InvalidParams, message);
    if (status === HttpStatus.NOT_FOUND) return notFound(message);
    if (status < 500) return new McpError(ErrorCode.ServerError, message, { status });
  }
  return new McpError(ErrorCode.InternalError, 'Internal error');
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

import { HttpException, HttpStatus } from '@nestjs/common';
import { ErrorCode, McpError, sanitizeText } from '@conduit-mcp/core';
import { McpInputRequired } from '../eras/modern/mrtr/input-required.signal';

/**
 * Turns whatever a handler threw into an error fit for the wire. McpErrors pass as they are; Nest HTTP exceptions
 * map by status (400 → -32602, 401/403 → -32000, 404 → `notFound`); anything else becomes -32603 with no
 * internals (Nest's exception handler has already logged it).
 */
export function toMcpError(
  error: unknown,
  notFound: () => McpError = () => new McpError(ErrorCode.InvalidParams, 'Not found'),
): McpError | McpInputRequired {
  // A modern-era question stops the handler; it passes unchanged, for the dispatcher to answer input_required.
  if (error instanceof McpError || error instanceof McpInputRequired) return error;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const message = sanitizeText(httpMessage(error), 512);
    if (status === HttpStatus.BAD_REQUEST) return new McpError(ErrorCode.InvalidParams, message);
    if (status === HttpStatus.NOT_FOUND) return notFound();
    if (status < 500) return new McpError(ErrorCode.ServerError, message, { status });
  }
  return new McpError(ErrorCode.InternalError, 'Internal error');
}

function httpMessage(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : error.message;
}

/** What goes on the wire for a failure: its McpError, or -32603 for anything else. */
export function toWireError(error: unknown): McpError {
  const mapped = toMcpError(error);
  return mapped instanceof McpError ? mapped : new McpError(ErrorCode.InternalError, 'Internal error');
}

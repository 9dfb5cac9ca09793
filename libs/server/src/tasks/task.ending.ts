import { CallToolResult, ErrorCode, Era } from '@conduit-mcp/core';
import { toWireError } from '../dispatch/error.mapper';
import type { TaskChanges } from './task.store';

/**
 * How a task's run ended, as the store records it — by the era that created the task: a tool error (`isError`) is
 * `completed` in the modern era (the tasks extension) and `failed` in 2025-11-25; a thrown error is `failed` with the
 * JSON-RPC error a plain call would have answered. Outstanding questions go.
 */
export function taskEnding(era: Era, outcome: { result: CallToolResult } | { error: unknown }): TaskChanges {
  if ('result' in outcome) {
    const failed = era === 'legacy' && outcome.result.isError === true;
    return { status: failed ? 'failed' : 'completed', result: outcome.result, inputRequests: undefined };
  }
  const wire = toWireError(outcome.error);
  const error = { code: wire.code, message: wire.message, ...(wire.data === undefined ? {} : { data: wire.data }) };
  return { status: 'failed', statusMessage: wire.message, error, inputRequests: undefined };
}

/** The end of a task whose run stopped before its handler ended (shutdown, a worker gone): `failed`, -32603, `message`. */
export function abandonedEnding(message: string): TaskChanges {
  return {
    status: 'failed',
    statusMessage: message,
    error: { code: ErrorCode.InternalError, message },
    inputRequests: undefined,
  };
}

import { sanitizeText } from '@conduit-mcp/core';
import { ServerUnreachableError } from './client-transport.errors';

// What a person can do something about, by the network's error code.
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found (DNS)',
  EAI_AGAIN: 'DNS lookup failed for now',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the server closed the connection',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'the server closed the connection',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
};

/**
 * A failed request as a {@link ServerUnreachableError} naming the server and the cause, when it is a network failure
 * (`fetch`'s `TypeError('fetch failed')` and its `cause`, or a bare system error); any other error (a refused
 * redirect, a programming error) as it is.
 */
export function describeNetworkFailure(error: unknown, url: URL): unknown {
  const cause = networkCause(error);
  if (!cause) return error;
  const code = typeof cause.code === 'string' ? cause.code : undefined;
  const where = `${url.origin}${url.pathname}`;
  const reason = code && REASONS[code] ? REASONS[code] : isTls(code) ? `TLS failure: ${cause.message}` : cause.message;
  return new ServerUnreachableError(
    where,
    code,
    sanitizeText(`${reason}${code && !reason.includes(code) ? ` (${code})` : ''}`, 300),
    {
      cause: error,
    },
  );
}

interface SystemError {
  message: string;
  code?: unknown;
}

// The system error behind a network failure: fetch's cause (the first of an AggregateError: every address failed).
// Duck-typed, not `instanceof`: the error may come from another realm (a test VM, a worker).
function networkCause(error: unknown): SystemError | undefined {
  let candidate: unknown = error;
  if (isErrorLike(error) && error.message.startsWith('fetch failed')) {
    candidate = (error as { cause?: unknown }).cause ?? { message: error.message };
  }
  const errors = isErrorLike(candidate) ? (candidate as { errors?: unknown }).errors : undefined;
  if (Array.isArray(errors) && errors.length) candidate = errors[0];
  if (!isErrorLike(candidate)) return undefined;
  return typeof candidate.code === 'string' || candidate !== error ? candidate : undefined;
}

function isErrorLike(value: unknown): value is SystemError {
  return typeof value === 'object' && value !== null && typeof (value as SystemError).message === 'string';
}

function isTls(code: string | undefined): boolean {
  return (
    code !== undefined &&
    (code.startsWith('ERR_TLS') ||
      code.startsWith('ERR_SSL') ||
      code.startsWith('CERT_') ||
      code.includes('SELF_SIGNED') ||
      code.startsWith('UNABLE_TO_'))
  );
}

/** The longest `Authorization` header value read; a longer one is malformed, whatever it holds. */
export const MAX_AUTHORIZATION_LENGTH = 16 * 1024;

/** What an `Authorization` header holds, as a bearer-token resource server reads it (RFC 6750 §2.1). */
export type BearerCredentials =
  /** No `Authorization` header: the request carries no authentication (a challenge then names no `error`). */
  | { kind: 'none' }
  /** A bearer token (not yet verified). */
  | { kind: 'bearer'; token: string }
  /** Another scheme (`Basic`, …): not a credential this server takes. */
  | { kind: 'other-scheme' }
  /** A header that breaks the syntax: two credentials, an empty or over-long token, characters outside b64token. */
  | { kind: 'malformed'; reason: string };

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const SCHEME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?: |$)/;

/**
 * Reads the `Authorization` header of a request (Node gives a repeated header as an array, or joins it with `, `):
 * exactly one `Bearer` credential gives its token; the token is never echoed in a `reason`.
 *
 * @example
 * ```ts
 * const credentials = parseBearerCredentials(req.headers.authorization);
 * if (credentials.kind === 'bearer') await verify(credentials.token);
 * ```
 */
export function parseBearerCredentials(header: string | string[] | undefined): BearerCredentials {
  if (header === undefined) return { kind: 'none' };
  if (Array.isArray(header)) {
    if (header.length === 0) return { kind: 'none' };
    if (header.length > 1) return { kind: 'malformed', reason: 'more than one Authorization header' };
    header = header[0];
  }
  if (header.length > MAX_AUTHORIZATION_LENGTH) return { kind: 'malformed', reason: 'Authorization header too long' };
  const value = header.trim();
  if (value === '') return { kind: 'malformed', reason: 'empty Authorization header' };
  const bearer = BEARER.exec(value);
  if (bearer) return { kind: 'bearer', token: bearer[1] };
  if (/^bearer(?: |$)/i.test(value)) {
    return {
      kind: 'malformed',
      reason: /,/.test(value) ? 'more than one credential' : 'a Bearer credential without a valid token',
    };
  }
  return SCHEME.test(value) ? { kind: 'other-scheme' } : { kind: 'malformed', reason: 'not an HTTP credential' };
}

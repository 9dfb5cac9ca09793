import { isScopeToken } from './scope.check';

/** The errors of a bearer-token challenge (RFC 6750 §3.1), and those a DPoP challenge adds (RFC 9449 §7.1, §9). */
export type BearerChallengeError =
  'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'use_dpop_nonce';

/** The parameters of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1). */
export interface BearerChallenge {
  realm?: string;
  /** Absent when the request carried no credentials (RFC 6750 §3.1). */
  error?: BearerChallengeError;
  errorDescription?: string;
  /** The scopes needed (a 403 `insufficient_scope`: all of those the operation needs, in one challenge). */
  scope?: readonly string[];
  /** The URL of the protected resource metadata document (RFC 9728 §5.1). */
  resourceMetadata?: string;
}

// RFC 6750 §3: error_description and realm use %x20-21 / %x23-5B / %x5D-7E (no `"`, no `\`): no escaping needed.
const QUOTABLE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The value of a `WWW-Authenticate` header for a bearer-token resource server: `Bearer` and the parameters given, each
 * a quoted string, in a fixed order (`realm`, `error`, `error_description`, `scope`, `resource_metadata`). A value
 * outside what RFC 6750 allows (a quote, a backslash, a control character; a scope that is not a scope token) is the
 * caller's bug: it throws rather than send a header a client would misread.
 *
 * @example
 * ```ts
 * res.setHeader('WWW-Authenticate', formatBearerChallenge({
 *   error: 'insufficient_scope',
 *   scope: ['notes:write'],
 *   resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
 * }));
 * // Bearer error="insufficient_scope", scope="notes:write", resource_metadata="https://…/mcp"
 * ```
 */
export function formatBearerChallenge(challenge: BearerChallenge = {}): string {
  const params: string[] = [];
  const add = (name: string, value: string | undefined) => {
    if (value === undefined) return;
    if (!QUOTABLE.test(value)) throw new Error(`Invalid ${name} in a bearer challenge: ${JSON.stringify(value)}`);
    params.push(`${name}="${value}"`);
  };
  add('realm', challenge.realm);
  add('error', challenge.error);
  add('error_description', challenge.errorDescription);
  if (challenge.scope !== undefined) {
    const invalid = challenge.scope.find((scope) => !isScopeToken(scope));
    if (invalid !== undefined) throw new Error(`Invalid scope in a bearer challenge: ${JSON.stringify(invalid)}`);
    if (challenge.scope.length) add('scope', [...new Set(challenge.scope)].join(' '));
  }
  add('resource_metadata', challenge.resourceMetadata);
  return params.length ? `Bearer ${params.join(', ')}` : 'Bearer';
}

import type { BearerChallenge, BearerChallengeError } from './bearer-challenge.format';
import { scopesOfClaim } from './scope.check';

// One auth-param (RFC 9110 §11.2): token = ( token / quoted-string ), with optional whitespace around `=`.
const AUTH_PARAM =
  /^[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*=[ \t]*(?:"((?:[^"\\]|\\.)*)"|([!#$%&'*+.^_`|~0-9A-Za-z/-]+=*))[ \t]*(,|$)/;
const SCHEME = /^[ \t,]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?=[ \t]|,|$)/;
const ERRORS = new Set<string>([
  'invalid_request',
  'invalid_token',
  'insufficient_scope',
  'invalid_dpop_proof',
  'use_dpop_nonce',
]);
/** Longer headers are not read: a challenge is a few hundred bytes. */
const MAX_HEADER_LENGTH = 8 * 1024;

/**
 * The `Bearer` challenge of a `WWW-Authenticate` header value (RFC 6750 §3, RFC 9728 §5.1), the counterpart of
 * `formatBearerChallenge` — or the challenge of another `scheme` with the same parameters (`DPoP`, RFC 9449 §7.1): its `realm`, `error`, `error_description`, `scope` (split into scope tokens) and
 * `resource_metadata`. Other schemes in the same header are skipped; `undefined` when there is no `Bearer` challenge or
 * the header cannot be read. Unknown parameters are ignored, and so is an `error` neither RFC 6750 nor RFC 9449 defines.
 *
 * @example
 * ```ts
 * parseBearerChallenge('Bearer error="insufficient_scope", scope="notes:read notes:write"');
 * // { error: 'insufficient_scope', scope: ['notes:read', 'notes:write'] }
 * ```
 */
export function parseBearerChallenge(
  header: string | null | undefined,
  scheme = 'Bearer',
): BearerChallenge | undefined {
  const wanted = scheme.toLowerCase();
  if (!header || header.length > MAX_HEADER_LENGTH) return undefined;
  let rest = header;
  let params: Map<string, string> | undefined;
  while (rest.length) {
    const found = SCHEME.exec(rest);
    if (!found) return undefined;
    rest = rest.slice(found[0].length);
    const own = new Map<string, string>();
    for (let param = AUTH_PARAM.exec(rest); param; param = AUTH_PARAM.exec(rest)) {
      const name = param[1].toLowerCase();
      const value = param[2] !== undefined ? param[2].replace(/\\(.)/g, '$1') : param[3];
      if (!own.has(name)) own.set(name, value);
      rest = rest.slice(param[0].length);
    }
    // A token68 credential (`Basic abc=`) or anything else unreadable ends this challenge: skip to the next comma.
    if (rest.length && !SCHEME.test(rest.replace(/^[ \t]*/, ''))) rest = rest.replace(/^[^,]*,?/, '');
    if (found[1].toLowerCase() === wanted && !params) params = own;
  }
  if (!params) return undefined;
  const challenge: BearerChallenge = {};
  const realm = params.get('realm');
  if (realm !== undefined) challenge.realm = realm;
  const error = params.get('error');
  if (error !== undefined && ERRORS.has(error)) challenge.error = error as BearerChallengeError;
  const description = params.get('error_description');
  if (description !== undefined) challenge.errorDescription = description;
  const scope = params.get('scope');
  if (scope !== undefined) challenge.scope = scopesOfClaim(scope);
  const resourceMetadata = params.get('resource_metadata');
  if (resourceMetadata !== undefined) challenge.resourceMetadata = resourceMetadata;
  return challenge;
}

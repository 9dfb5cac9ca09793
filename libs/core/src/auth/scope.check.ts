// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) — printable ASCII but space, `"` and `\`.
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** Whether `value` is one OAuth scope (RFC 6749 §3.3 `scope-token`): it can go in a challenge unescaped. */
export function isScopeToken(value: string): boolean {
  return SCOPE_TOKEN.test(value);
}

/**
 * The scopes a token's claim grants: a space-delimited string (`scope`, RFC 9068) or an array of strings (`scp`, as
 * some providers send it). Anything that is not a scope token is dropped; duplicates are removed; order is kept.
 */
export function scopesOfClaim(claim: unknown): string[] {
  const values = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim : [];
  return [...new Set(values.filter((value): value is string => typeof value === 'string' && isScopeToken(value)))];
}

/**
 * Broader scopes and the narrower ones each implies (`{ admin: ['notes:read', 'notes:write'] }`): the specification
 * asks a server to account for such hierarchies when it decides whether a token's scopes suffice.
 */
export type ImpliedScopes = Readonly<Record<string, readonly string[]>>;

/** The scopes `granted` gives, with everything they imply (transitively; a cycle is harmless). */
export function expandScopes(granted: Iterable<string>, implied: ImpliedScopes = {}): Set<string> {
  const all = new Set<string>();
  const pending = [...granted];
  while (pending.length) {
    const scope = pending.pop()!;
    if (all.has(scope)) continue;
    all.add(scope);
    if (Object.prototype.hasOwnProperty.call(implied, scope)) pending.push(...implied[scope]);
  }
  return all;
}

/**
 * The scopes of `required` that `granted` (with what it implies) does not give; empty when the caller may proceed.
 *
 * @example
 * ```ts
 * missingScopes(['admin'], ['notes:write'], { admin: ['notes:write'] }); // []
 * missingScopes(['notes:read'], ['notes:read', 'notes:write']); // ['notes:write']
 * ```
 */
export function missingScopes(
  granted: Iterable<string>,
  required: Iterable<string>,
  implied: ImpliedScopes = {},
): string[] {
  const has = expandScopes(granted, implied);
  return [...new Set(required)].filter((scope) => !has.has(scope));
}

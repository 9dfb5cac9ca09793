import fc from 'fast-check';
import { expandScopes, isScopeToken, missingScopes, scopesOfClaim } from './scope.check';

describe('scopes', () => {
  it('knows a scope token (RFC 6749 §3.3): printable ASCII but space, quote and backslash', () => {
    for (const scope of ['notes:read', 'https://api.example.com/notes.read', 'a', '!#[]~'])
      expect(isScopeToken(scope)).toBe(true);
    for (const scope of ['', 'notes read', 'say"', 'a\\b', 'é', 'tab\t']) expect(isScopeToken(scope)).toBe(false);
  });

  it('reads a scope claim as a space-delimited string or an array, dropping what is not a scope', () => {
    expect(scopesOfClaim('notes:read  notes:write notes:read')).toEqual(['notes:read', 'notes:write']);
    expect(scopesOfClaim(['notes:read', 42, 'bad scope', 'admin'])).toEqual(['notes:read', 'admin']);
    expect(scopesOfClaim(undefined)).toEqual([]);
    expect(scopesOfClaim({ scope: 'x' })).toEqual([]);
  });

  it('names the scopes still missing, accounting for the scopes a broader one implies', () => {
    const implied = { admin: ['notes:write'], 'notes:write': ['notes:read'] };
    expect(missingScopes(['notes:read'], ['notes:read', 'notes:write'])).toEqual(['notes:write']);
    expect(missingScopes(['admin'], ['notes:read', 'notes:write'], implied)).toEqual([]);
    expect(missingScopes([], ['a', 'a'])).toEqual(['a']);
    expect([...expandScopes(['a'], { a: ['b'], b: ['a'] })].sort()).toEqual(['a', 'b']); // a cycle ends
    expect(missingScopes(['x'], ['constructor', 'toString'], {})).toEqual(['constructor', 'toString']);
  });

  it('needs nothing more once everything required is granted', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.array(fc.string()), (granted, extra) => {
        expect(missingScopes([...granted, ...extra], granted)).toEqual([]);
      }),
    );
  });
});

import type { ProtectedResourceMetadata } from '@conduit-mcp/core';
import { chooseScopes } from './scope.selector';

const resource = (scopes_supported?: unknown): ProtectedResourceMetadata => ({
  resource: 'https://mcp.example.com/mcp',
  authorization_servers: ['https://as.example.com'],
  ...(scopes_supported === undefined ? {} : { scopes_supported: scopes_supported as string[] }),
});

describe('chooseScopes', () => {
  describe('which scopes', () => {
    it('takes the configured scopes over the challenge and the resource', () => {
      expect(
        chooseScopes({
          configured: ['configured:a', 'configured:b'],
          challenge: { scope: ['challenge'] },
          resource: resource(['prm']),
          offlineAccess: false,
        }),
      ).toEqual(['configured:a', 'configured:b']);
    });

    it('steps up from the configured scopes: insufficient_scope adds what the challenge names to them', () => {
      const stepUp = { error: 'insufficient_scope' as const, scope: ['challenge'] };
      expect(chooseScopes({ configured: ['configured:a'], challenge: stepUp, offlineAccess: false })).toEqual([
        'configured:a',
        'challenge',
      ]);
      expect(
        chooseScopes({ configured: ['configured:a'], challenge: stepUp, held: ['held'], offlineAccess: false }),
      ).toEqual(['held', 'challenge']);
    });

    it('takes an empty configured list as it is: no scope parameter', () => {
      expect(chooseScopes({ configured: [], resource: resource(['prm']), offlineAccess: false })).toEqual([]);
    });

    it('on insufficient_scope, asks for those held and those challenged: order kept, no duplicates', () => {
      expect(
        chooseScopes({
          challenge: { error: 'insufficient_scope', scope: ['files:write', 'files:read', 'admin'] },
          held: ['files:read', 'profile'],
          resource: resource(['prm']),
          offlineAccess: false,
        }),
      ).toEqual(['files:read', 'profile', 'files:write', 'admin']);
    });

    it('on insufficient_scope without a held authorization, asks for the challenged scopes', () => {
      expect(
        chooseScopes({ challenge: { error: 'insufficient_scope', scope: ['files:write'] }, offlineAccess: false }),
      ).toEqual(['files:write']);
    });

    it('on insufficient_scope without a challenged scope, keeps those held', () => {
      expect(
        chooseScopes({
          challenge: { error: 'insufficient_scope' },
          held: ['files:read'],
          resource: resource(['prm']),
          offlineAccess: false,
        }),
      ).toEqual(['files:read']);
    });

    it("on a 401, takes the challenge's scope alone: not those held, not the resource's", () => {
      const choice = { held: ['held'], resource: resource(['prm']), offlineAccess: false };
      expect(chooseScopes({ ...choice, challenge: { scope: ['files:read'] } })).toEqual(['files:read']);
      expect(chooseScopes({ ...choice, challenge: { error: 'invalid_token', scope: ['files:read'] } })).toEqual([
        'files:read',
      ]);
    });

    it("takes the resource's scopes_supported when the challenge names none", () => {
      const supported = ['mcp:basic', 'mcp:read', 'mcp:write'];
      expect(chooseScopes({ resource: resource(supported), offlineAccess: false })).toEqual(supported);
      expect(chooseScopes({ challenge: {}, resource: resource(supported), offlineAccess: false })).toEqual(supported);
      expect(chooseScopes({ challenge: { scope: [] }, resource: resource(supported), offlineAccess: false })).toEqual(
        supported,
      );
    });

    it("keeps only the strings of a resource's scopes_supported, once each", () => {
      expect(chooseScopes({ resource: resource(['a', 7, null, 'b', 'a']), offlineAccess: false })).toEqual(['a', 'b']);
      expect(chooseScopes({ resource: resource('a b'), offlineAccess: false })).toEqual([]);
    });

    it('asks for no scope without any source', () => {
      expect(chooseScopes({ offlineAccess: false })).toEqual([]);
      expect(chooseScopes({ resource: resource(), offlineAccess: false })).toEqual([]);
      expect(chooseScopes({ challenge: {}, held: ['held'], resource: resource(), offlineAccess: false })).toEqual([]);
    });

    it('does not change what it was given', () => {
      const held = ['a'];
      const challenged = ['b'];
      chooseScopes({
        challenge: { error: 'insufficient_scope', scope: challenged },
        held,
        serverScopes: ['offline_access'],
        offlineAccess: true,
      });
      expect(held).toEqual(['a']);
      expect(challenged).toEqual(['b']);
    });
  });

  describe('offline_access', () => {
    const withServer = { resource: resource(['mcp:basic']), serverScopes: ['mcp:basic', 'offline_access'] };

    it('is added, last, when the authorization server lists it and a refresh token is wanted', () => {
      expect(chooseScopes({ ...withServer, offlineAccess: true })).toEqual(['mcp:basic', 'offline_access']);
      expect(chooseScopes({ configured: ['x'], ...withServer, offlineAccess: true })).toEqual(['x', 'offline_access']);
      expect(chooseScopes({ serverScopes: ['offline_access'], offlineAccess: true })).toEqual(['offline_access']);
    });

    it('is not added when no refresh token is wanted', () => {
      expect(chooseScopes({ ...withServer, offlineAccess: false })).toEqual(['mcp:basic']);
    });

    it('is not added when the authorization server does not list it, or lists no scopes', () => {
      expect(
        chooseScopes({ resource: resource(['mcp:basic']), serverScopes: ['mcp:basic'], offlineAccess: true }),
      ).toEqual(['mcp:basic']);
      expect(chooseScopes({ resource: resource(['mcp:basic']), offlineAccess: true })).toEqual(['mcp:basic']);
    });

    it('is not repeated when a source names it already', () => {
      expect(
        chooseScopes({
          challenge: { error: 'insufficient_scope', scope: ['files:write'] },
          held: ['files:read', 'offline_access'],
          serverScopes: ['offline_access'],
          offlineAccess: true,
        }),
      ).toEqual(['files:read', 'offline_access', 'files:write']);
    });

    it("is dropped from a server's scopes unless it would have been added (SEP-2207)", () => {
      const fromResource = { resource: resource(['mcp:basic', 'offline_access']) };
      expect(chooseScopes({ ...fromResource, serverScopes: ['mcp:basic'], offlineAccess: true })).toEqual([
        'mcp:basic',
      ]);
      expect(chooseScopes({ ...fromResource, serverScopes: ['offline_access'], offlineAccess: false })).toEqual([
        'mcp:basic',
      ]);
      expect(chooseScopes({ challenge: { scope: ['offline_access', 'a'] }, offlineAccess: true })).toEqual(['a']);
      expect(
        chooseScopes({
          challenge: { error: 'insufficient_scope', scope: ['b'] },
          held: ['a', 'offline_access'],
          serverScopes: ['a', 'b'],
          offlineAccess: true,
        }),
      ).toEqual(['a', 'b']);
    });

    it('is kept when configured, whatever the authorization server lists', () => {
      expect(chooseScopes({ configured: ['offline_access', 'a'], serverScopes: ['a'], offlineAccess: false })).toEqual([
        'offline_access',
        'a',
      ]);
    });
  });
});

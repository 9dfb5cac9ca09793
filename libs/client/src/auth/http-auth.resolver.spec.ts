import type { McpHttpAuthProvider } from '../transports/http-client.session';
import { resolveHttpAuth } from './http-auth.resolver';
import type { McpOAuthOptions } from './mcp-oauth.options';
import { OAuthAuthorizationProvider } from './oauth-authorization.provider';

describe('resolveHttpAuth', () => {
  it('keeps no auth and a provider of the caller as they are', () => {
    const own: McpHttpAuthProvider = { headers: () => ({ Authorization: 'Bearer fixed' }) };
    expect(resolveHttpAuth(undefined, 'https://a.example/mcp', 'app')).toBeUndefined();
    expect(resolveHttpAuth(own, 'https://a.example/mcp', 'app')).toBe(own);
  });

  it('makes OAuth options one provider per server URL, the same one on every reconnect', () => {
    const options: McpOAuthOptions = { grant: 'client_credentials', clientId: 'c', clientSecret: 's' };
    const first = resolveHttpAuth(options, 'https://a.example/mcp', 'app');
    expect(first).toBeInstanceOf(OAuthAuthorizationProvider);
    expect(resolveHttpAuth(options, 'https://a.example/mcp', 'app')).toBe(first);
    // The same options object for another server: another provider, so tokens never cross servers.
    const other = resolveHttpAuth(options, 'https://b.example/mcp', 'app');
    expect(other).toBeInstanceOf(OAuthAuthorizationProvider);
    expect(other).not.toBe(first);
    // Equal options in another object: another provider too.
    expect(resolveHttpAuth({ ...options }, 'https://a.example/mcp', 'app')).not.toBe(first);
  });
});

import type { McpHttpAuthProvider } from '../transports/http-client.session';
import type { McpOAuthOptions } from './mcp-oauth.options';
import { OAuthAuthorizationProvider } from './oauth-authorization.provider';

/** A server's `transport.auth`: a provider of its own, or OAuth options. */
export type McpHttpAuth = McpHttpAuthProvider | McpOAuthOptions;

// One provider per options object and server URL: a reconnect (a new transport) keeps the tokens and the registration.
const providers = new WeakMap<McpOAuthOptions, Map<string, OAuthAuthorizationProvider>>();

/** The provider `auth` stands for at `url`; OAuth options become the OAuth client (`clientName` for registration). */
export function resolveHttpAuth(
  auth: McpHttpAuth | undefined,
  url: string,
  clientName: string,
): McpHttpAuthProvider | undefined {
  if (!auth || typeof (auth as McpHttpAuthProvider).headers === 'function') return auth as McpHttpAuthProvider;
  const options = auth as McpOAuthOptions;
  let byUrl = providers.get(options);
  if (!byUrl) providers.set(options, (byUrl = new Map()));
  let provider = byUrl.get(url);
  if (!provider) {
    provider = new OAuthAuthorizationProvider(new URL(url), {
      ...options,
      clientName: options.clientName ?? clientName,
    });
    byUrl.set(url, provider);
  }
  return provider;
}

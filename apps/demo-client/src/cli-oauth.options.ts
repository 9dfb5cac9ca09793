import { LOOPBACK_HOSTNAMES } from '@conduit-mcp/core';
import { McpLoopbackRedirect, McpOAuthOptions } from '@conduit-mcp/client';
import { CliOAuth } from './cli-arguments';

/** The name the CLI registers itself under at an authorization server. */
export const CLI_CLIENT_NAME = 'conduit-demo-client';

/**
 * The OAuth options of the server at `url`: the browser comes back to `redirect`, the authorization URL is printed on
 * stderr (stdout holds the answer only), plain http is allowed only when the server itself is on this machine.
 */
export function cliOAuthOptions(url: string, oauth: CliOAuth, redirect: McpLoopbackRedirect): McpOAuthOptions {
  return {
    ...redirect.authorization(showAuthorizationUrl),
    clientName: CLI_CLIENT_NAME,
    ...(oauth.clientId !== undefined && { clientId: oauth.clientId }),
    ...(oauth.clientSecret !== undefined && { clientSecret: oauth.clientSecret }),
    ...(oauth.scope && { scope: oauth.scope }),
    ...(LOOPBACK_HOSTNAMES.includes(new URL(url).hostname) && { allowInsecureLoopback: true }),
  };
}

// Printed whole, not through terminalLine (which may shorten it): a serialized URL holds no control or non-ASCII
// character, since URL percent-encodes them and turns a Unicode host into punycode.
function showAuthorizationUrl(url: URL): void {
  process.stderr.write(`Open this URL to authorize: ${url.href}\n`);
}

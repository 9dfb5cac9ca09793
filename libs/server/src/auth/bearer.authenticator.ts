import { BearerChallenge, formatBearerChallenge, parseBearerCredentials } from '@conduit-mcp/core';
import type { TransportFacts } from '../dispatch/transport-facts.interface';
import { ResolvedAuth } from './auth-options.resolve';
import { principalOf } from './auth-principal';
import { McpAuthResult, McpAuthenticator } from './mcp-authenticator.interface';
import { McpTokenVerifier } from './mcp-auth-options.interface';

/**
 * The authenticator of `McpModule.forRoot({ auth })`: one `Bearer` token per request, checked by the configured
 * verifier. A request without credentials (or with another scheme) gets a 401 naming only where the metadata is (and
 * the first scopes to ask for, when configured); a malformed `Authorization` header `invalid_request`; a token the
 * verifier refuses, or one naming neither a subject nor a client, `invalid_token`, with a fixed description — never the token, never why the verifier refused it.
 */
export class McpBearerAuthenticator implements McpAuthenticator {
  constructor(
    private readonly auth: ResolvedAuth,
    private readonly verifier: McpTokenVerifier,
  ) {}

  async authenticate(facts: TransportFacts): Promise<McpAuthResult> {
    const credentials = parseBearerCredentials(facts.headers.authorization);
    if (credentials.kind === 'malformed')
      return this.refuse({ error: 'invalid_request', errorDescription: 'The Authorization header is malformed' });
    if (credentials.kind !== 'bearer') return this.refuse({ scope: this.auth.options.challengeScope });
    const auth = await this.verifier.verify(credentials.token, facts);
    // A token naming neither a subject nor a client would make its holder anonymous: nothing to bind sessions to.
    if (!auth || principalOf(auth) === undefined)
      return this.refuse({ error: 'invalid_token', errorDescription: 'The access token is invalid' });
    const { token: _given, ...rest } = auth;
    return { ok: true, auth: this.auth.options.exposeToken ? { ...rest, token: credentials.token } : rest };
  }

  private refuse(challenge: BearerChallenge): McpAuthResult {
    const header = formatBearerChallenge({ ...challenge, resourceMetadata: this.auth.metadataUrl });
    return { ok: false, status: 401, challenge: header };
  }
}

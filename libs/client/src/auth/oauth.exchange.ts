import { sanitizeText } from '@conduit-mcp/core';
import { createGuardedFetch, GuardedFetch, OAuthNetworkOptions } from './guarded.fetch';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import { loadOAuth4WebApi, OAuth4WebApi } from './oauth4webapi.loader';

/** What one OAuth step is, for its error message. */
export type OAuthStep = 'registration' | 'authorization' | 'token request' | 'token refresh' | 'token exchange';

/**
 * How the OAuth client talks to authorization servers: oauth4webapi, over the SSRF-guarded fetch (plain http allowed
 * only to loopback, and only when configured), with each failure turned into an `McpAuthorizationError` that says
 * which step failed and what the authorization server answered.
 */
export class OAuthExchange {
  readonly oauth: OAuth4WebApi;
  readonly fetch: GuardedFetch;
  /** The options every oauth4webapi request function takes. */
  readonly requestOptions: Record<symbol, unknown>;

  constructor(network: OAuthNetworkOptions) {
    this.oauth = loadOAuth4WebApi();
    this.fetch = createGuardedFetch(network);
    this.requestOptions = {
      [this.oauth.customFetch]: this.fetch,
      [this.oauth.allowInsecureRequests]: network.allowInsecureLoopback === true,
    };
  }

  /** Runs one step; its failure becomes an `McpAuthorizationError` naming the step. */
  async call<T>(step: OAuthStep, run: () => Promise<T> | T): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof McpAuthorizationError) throw error;
      throw new McpAuthorizationError(`OAuth ${step} failed: ${describe(error)}`, { cause: error });
    }
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { error: code, error_description: description } = error as { error?: unknown; error_description?: unknown };
  if (typeof code === 'string') {
    const said = typeof description === 'string' ? `: ${sanitizeText(description, 200)}` : '';
    return `${sanitizeText(code, 80)}${said}`;
  }
  return sanitizeText(error.message, 300);
}

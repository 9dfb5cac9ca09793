import { LOOPBACK_HOSTNAMES, readBoundedResponse, scopesOfClaim } from '@conduit-mcp/core';
import type { McpAuthInfo } from './mcp-auth-info.interface';
import type { McpIntrospectionTokenVerification, McpTokenVerifier } from './mcp-auth-options.interface';
import { IntrospectionCache, IntrospectionVerdict } from './introspection.cache';
import { IssuerMetadata } from './issuer-metadata.fetcher';

const DEFAULT_CACHE_TTL_MS = 60_000;
const DEFAULT_MAX_CACHE_ENTRIES = 10_000;
const TIMEOUT_MS = 5_000;
/** The largest answer read; an introspection answer is a few hundred bytes of claims. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * The introspection endpoint failed: the server's fault, not the token's. Its message is one of a few fixed
 * sentences — never the token, the client secret or anything the endpoint sent.
 */
export class IntrospectionError extends Error {
  override name = 'IntrospectionError';
}

/**
 * Verifies opaque access tokens by OAuth 2.0 Token Introspection (RFC 7662): posts the token to the authorization
 * server's introspection endpoint (configured, or found in the first authorization server's metadata), authenticated
 * as the resource server's client (RFC 6749 §2.3.1: Basic or in the form), within a timeout, without following
 * redirects, reading a bounded answer. A token is valid only when the answer is `active: true` with this resource
 * among its audiences (`aud` is required), an accepted issuer (`iss`, when present), a future `exp` (when present) and
 * a bearer access token type (`token_type`, when present). Verdicts are cached (see {@link IntrospectionCache}); an
 * endpoint failure is thrown (500) and not cached.
 */
export class IntrospectionTokenVerifier implements McpTokenVerifier {
  private readonly cache: IntrospectionCache;
  private readonly audiences: string[];
  private readonly issuers: string[];
  private readonly now: () => number;
  private endpoint: Promise<string> | undefined;

  constructor(
    private readonly options: McpIntrospectionTokenVerification,
    resource: string,
    private readonly authorizationServers: string[],
    private readonly metadata = new IssuerMetadata(),
    now: () => number = Date.now,
  ) {
    this.audiences = [resource, ...(options.audiences ?? [])];
    this.issuers = options.issuers ?? authorizationServers;
    this.cache = new IntrospectionCache({
      ttlMs: options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS,
      maxEntries: options.maxCacheEntries ?? DEFAULT_MAX_CACHE_ENTRIES,
      now,
    });
    this.now = now;
  }

  verify(token: string): Promise<McpAuthInfo | undefined> {
    return this.cache.lookup(token, () => this.introspect(token));
  }

  private async introspect(token: string): Promise<IntrospectionVerdict> {
    const endpoint = await this.endpointUrl();
    const form = new URLSearchParams({ token, token_type_hint: 'access_token' });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const { clientId, clientSecret } = this.options;
    if (this.options.clientAuthentication === 'client_secret_post') {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    } else {
      const credentials = `${formEncoded(clientId)}:${formEncoded(clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
    }
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers,
        body: form.toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw failure(isTimeout(error) ? 'it did not answer in time' : `it could not be reached${codeOf(error)}`);
    }
    if (response.status !== 200) {
      void response.body?.cancel().catch(() => undefined);
      throw failure(`it answered HTTP ${response.status}`);
    }
    let answer: unknown;
    try {
      const body = await readBoundedResponse(response, MAX_ANSWER_BYTES, () => failure('its answer is too large'));
      answer = JSON.parse(body.toString('utf8'));
    } catch (error) {
      if (error instanceof IntrospectionError) throw error;
      throw failure(isTimeout(error) ? 'it did not answer in time' : 'its answer is not JSON');
    }
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
      throw failure('its answer is not a JSON object');
    const claims = answer as Record<string, unknown>;
    if (typeof claims.active !== 'boolean') throw failure('its answer has no active member');
    return this.verdictOf(claims);
  }

  private verdictOf(claims: Record<string, unknown>): IntrospectionVerdict {
    if (claims.active !== true) return { active: false };
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (!audiences.some((audience) => this.audiences.includes(audience as string))) return { active: false };
    if (claims.iss !== undefined && !this.issuers.includes(claims.iss as string)) return { active: false };
    let expiresAtMs: number | undefined;
    if (claims.exp !== undefined) {
      if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) return { active: false };
      expiresAtMs = claims.exp * 1000;
      if (expiresAtMs <= this.now()) return { active: false };
    }
    const type = claims.token_type;
    if (type !== undefined && !(typeof type === 'string' && /^(bearer|access_token)$/i.test(type)))
      return { active: false };
    const auth: McpAuthInfo = { scopes: scopesOfClaim(claims.scope), claims: { ...claims } };
    if (typeof claims.sub === 'string') auth.subject = claims.sub;
    if (typeof claims.client_id === 'string') auth.clientId = claims.client_id;
    return { active: true, auth, expiresAtMs };
  }

  // The configured endpoint, else the first authorization server's, looked up once (a failed lookup is tried again by
  // the next request).
  private endpointUrl(): Promise<string> {
    if (this.options.endpoint !== undefined) return Promise.resolve(this.options.endpoint);
    if (!this.endpoint) {
      this.endpoint = this.discover();
      this.endpoint.catch(() => (this.endpoint = undefined));
    }
    return this.endpoint;
  }

  private async discover(): Promise<string> {
    const issuer = this.authorizationServers[0];
    const endpoint = await this.metadata.endpointOf(issuer, 'introspection_endpoint');
    // The client secret goes there: the same rule as for a configured endpoint.
    const problem = endpointProblem(endpoint);
    if (problem)
      throw failure(`the metadata of ${issuer} names an introspection_endpoint that is not usable: ${problem}`);
    return endpoint;
  }

  /** The options, checked: a start-up error's text, or undefined when they are usable. */
  static checkOptions(options: McpIntrospectionTokenVerification): string | undefined {
    for (const key of ['clientId', 'clientSecret'] as const) {
      if (typeof options[key] !== 'string' || options[key] === '')
        return `token.${key} is required: introspection authenticates the resource server as an OAuth client`;
    }
    const method = options.clientAuthentication;
    if (method !== undefined && method !== 'client_secret_basic' && method !== 'client_secret_post')
      return "token.clientAuthentication must be 'client_secret_basic' or 'client_secret_post'";
    if (options.endpoint !== undefined) {
      const problem = typeof options.endpoint === 'string' ? endpointProblem(options.endpoint) : 'not a string';
      // Not quoted: an endpoint with credentials in it would put them in the error.
      if (problem) return `token.endpoint is not usable: ${problem}`;
    }
    for (const key of ['cacheTtlMs', 'maxCacheEntries'] as const) {
      const value = options[key];
      if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0))
        return `token.${key} must be a whole number, 0 or more`;
    }
    if (
      options.audiences !== undefined &&
      !(Array.isArray(options.audiences) && options.audiences.every((aud) => typeof aud === 'string' && aud !== ''))
    )
      return 'token.audiences must be a list of audience strings';
    if (options.issuers !== undefined && !Array.isArray(options.issuers)) return 'token.issuers must be a list';
    return undefined;
  }
}

/** What is wrong with `endpoint` as a URL to send client credentials to (undefined: nothing). */
function endpointProblem(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'it is not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTNAMES.includes(url.hostname)))
    return 'it must use https (http only on a loopback host: localhost, 127.0.0.1, [::1])';
  if (url.username || url.password) return 'it must not carry credentials';
  if (endpoint.includes('#')) return 'it must not have a fragment';
  return undefined;
}

// RFC 6749 §2.3.1: the client id and secret are form-urlencoded before they become Basic's user and password.
function formEncoded(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

function failure(reason: string): IntrospectionError {
  return new IntrospectionError(`Token introspection failed: ${reason}`);
}

function isTimeout(error: unknown): boolean {
  return (error as { name?: unknown })?.name === 'TimeoutError';
}

// A system error code (ECONNREFUSED, ENOTFOUND…) says why without quoting anything the peer or the request carried.
function codeOf(error: unknown): string {
  const code = ((error as { cause?: { code?: unknown } })?.cause ?? {}).code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,40}$/.test(code) ? ` (${code})` : '';
}

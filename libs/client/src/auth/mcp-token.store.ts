/** A value, or a promise of it. */
type Awaitable<T> = T | Promise<T>;

/** Whose tokens: those an authorization server issued for one resource (a server's canonical URL). */
export interface McpTokenKey {
  issuer: string;
  resource: string;
}

/** Tokens for one key. Secrets: a store keeps them as it keeps passwords, and never logs them. */
export interface McpStoredTokens {
  accessToken: string;
  /** `Bearer`, or `DPoP` for a token bound to the client's DPoP key (held in memory: useless after a restart). */
  tokenType: 'Bearer' | 'DPoP';
  /** Epoch milliseconds; absent when the authorization server did not say. */
  expiresAt?: number;
  /** Epoch milliseconds, when `expiresAt` is known: a short-lived token is refreshed at half its lifetime. */
  issuedAt?: number;
  refreshToken?: string;
  /** The scopes asked for (the granted ones when the authorization server said). */
  scope: string[];
}

/** A client registered with an authorization server (dynamic registration, RFC 7591). */
export interface McpRegisteredClient {
  clientId: string;
  clientSecret?: string;
  /** The `token_endpoint_auth_method` the registration settled on. */
  authMethod: string;
  /** The redirect URI registered (a new one needs a new registration). */
  redirectUri?: string;
}

/**
 * Where the OAuth client keeps tokens (per authorization server and resource, so a token never reaches another
 * server, and a migration to a new authorization server starts afresh) and its dynamic registrations (per
 * authorization server). The default keeps them in memory; implement it over a secrets store (a vault, the OS
 * keychain, an encrypted table) to keep them across restarts.
 *
 * @example
 * class VaultTokenStore implements McpTokenStore {
 *   get(key: McpTokenKey) { return vault.read(`mcp/${key.issuer}/${key.resource}`); }
 *   set(key: McpTokenKey, tokens: McpStoredTokens) { return vault.write(`mcp/${key.issuer}/${key.resource}`, tokens); }
 *   delete(key: McpTokenKey) { return vault.remove(`mcp/${key.issuer}/${key.resource}`); }
 *   getClient(issuer: string) { return vault.read(`mcp-clients/${issuer}`); }
 *   setClient(issuer: string, client: McpRegisteredClient) { return vault.write(`mcp-clients/${issuer}`, client); }
 * }
 */
export interface McpTokenStore {
  get(key: McpTokenKey): Awaitable<McpStoredTokens | undefined>;
  set(key: McpTokenKey, tokens: McpStoredTokens): Awaitable<void>;
  delete(key: McpTokenKey): Awaitable<void>;
  getClient(issuer: string): Awaitable<McpRegisteredClient | undefined>;
  setClient(issuer: string, client: McpRegisteredClient): Awaitable<void>;
}

/** Entries a memory store keeps of each kind before it forgets the oldest. */
const MAX_ENTRIES = 1000;

/** The default `McpTokenStore`: in memory, for this process, bounded (the oldest entry goes first). */
export class MemoryTokenStore implements McpTokenStore {
  private readonly tokens = new Map<string, McpStoredTokens>();
  private readonly clients = new Map<string, McpRegisteredClient>();

  get(key: McpTokenKey): McpStoredTokens | undefined {
    return this.tokens.get(keyOf(key));
  }

  set(key: McpTokenKey, tokens: McpStoredTokens): void {
    remember(this.tokens, keyOf(key), tokens);
  }

  delete(key: McpTokenKey): void {
    this.tokens.delete(keyOf(key));
  }

  getClient(issuer: string): McpRegisteredClient | undefined {
    return this.clients.get(issuer);
  }

  setClient(issuer: string, client: McpRegisteredClient): void {
    remember(this.clients, issuer, client);
  }
}

// Unambiguous whatever the two strings hold: an issuer is whatever a server's metadata names, a space included.
function keyOf(key: McpTokenKey): string {
  return JSON.stringify([key.issuer, key.resource]);
}

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
}

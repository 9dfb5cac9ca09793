import { KeyObject, createPrivateKey, webcrypto } from 'node:crypto';
import { LOOPBACK_HOSTNAMES, isJsonObject } from '@conduit-mcp/core';
import type { AuthorizationServer, Client, ClientAuth } from 'oauth4webapi';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import type { McpOAuthOptions } from './mcp-oauth.options';
import type { McpRegisteredClient, McpTokenStore } from './mcp-token.store';
import type { OAuthExchange } from './oauth.exchange';

/** Who the client is to one authorization server, and how it authenticates at the token endpoint. */
export interface ClientIdentity {
  client: Client;
  authentication: ClientAuth;
}

// RFC 8414 §2: without token_endpoint_auth_methods_supported, the default is client_secret_basic.
const DEFAULT_AUTH_METHODS = ['client_secret_basic'];

/**
 * The client's identity at `as`, in the specification's order: pre-registered credentials (`clientId`, for the
 * issuer they belong to); a client ID metadata document (`clientMetadataUrl`) where the server supports them; a client
 * registered before with that server (the token store); else a dynamic registration (RFC 7591), kept in the store.
 * Credentials of one authorization server are never sent to another.
 */
export async function resolveClientIdentity(
  as: AuthorizationServer,
  options: McpOAuthOptions & { clientName: string },
  store: McpTokenStore,
  exchange: OAuthExchange,
): Promise<ClientIdentity> {
  const { oauth } = exchange;
  const supported = as.token_endpoint_auth_methods_supported ?? DEFAULT_AUTH_METHODS;
  if (options.clientId && (!options.issuer || sameIssuer(options.issuer, as.issuer))) {
    const client: Client = { client_id: options.clientId };
    if (options.privateKey) return { client, authentication: await privateKeyJwt(options, exchange) };
    if (options.clientSecret === undefined) return { client, authentication: oauth.None() };
    return { client, authentication: secretAuthentication(supported, options.clientSecret, exchange) };
  }
  if (options.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
    const client: Client = { client_id: options.clientMetadataUrl };
    return { client, authentication: options.privateKey ? await privateKeyJwt(options, exchange) : oauth.None() };
  }
  const registered = await registeredClient(as, options, supported, store, exchange);
  const client: Client = { client_id: registered.clientId };
  if (registered.authMethod === 'none' || registered.clientSecret === undefined)
    return { client, authentication: oauth.None() };
  return {
    client,
    authentication:
      registered.authMethod === 'client_secret_post'
        ? oauth.ClientSecretPost(registered.clientSecret)
        : clientSecretBasic(registered.clientSecret),
  };
}

async function registeredClient(
  as: AuthorizationServer,
  options: McpOAuthOptions & { clientName: string },
  supported: readonly string[],
  store: McpTokenStore,
  exchange: OAuthExchange,
): Promise<McpRegisteredClient> {
  const known = await store.getClient(as.issuer);
  if (known && known.redirectUri === options.redirectUri) return known;
  if (!as.registration_endpoint) {
    throw new McpAuthorizationError(
      `The authorization server ${as.issuer} offers no dynamic client registration: configure a clientId (or a clientMetadataUrl)`,
    );
  }
  const code = (options.grant ?? 'authorization_code') === 'authorization_code';
  const method = code && supported.includes('none') ? 'none' : supported.find((m) => SECRET_METHODS.has(m));
  if (!method) {
    throw new McpAuthorizationError(
      `The authorization server ${as.issuer} supports no client authentication this client can register with (${supported.join(', ')})`,
    );
  }
  const metadata: Record<string, string | string[]> = {
    client_name: options.clientName,
    grant_types: code ? ['authorization_code', 'refresh_token'] : [GRANT_TYPES[options.grant!] ?? options.grant!],
    response_types: code ? ['code'] : [],
    token_endpoint_auth_method: method,
    // SEP-837: a native app (a loopback or private-scheme redirect) or a web one.
    application_type: code && options.redirectUri && isNativeRedirect(options.redirectUri) ? 'native' : 'web',
  };
  if (code && options.redirectUri) metadata.redirect_uris = [options.redirectUri];
  const registration = await exchange.call('registration', () =>
    exchange.oauth.dynamicClientRegistrationRequest(as, metadata, exchange.requestOptions),
  );
  // Read leniently (oauth4webapi's check also refuses optional fields of the wrong type): a client id is what matters.
  const answer = await exchange.call('registration', () => registrationAnswer(registration));
  const secret = typeof answer.client_secret === 'string' ? answer.client_secret : undefined;
  const answered = typeof answer.token_endpoint_auth_method === 'string' ? answer.token_endpoint_auth_method : method;
  const registered: McpRegisteredClient = {
    clientId: answer.client_id,
    ...(secret !== undefined && { clientSecret: secret }),
    authMethod: answered,
    ...(options.redirectUri && { redirectUri: options.redirectUri }),
  };
  await store.setClient(as.issuer, registered);
  return registered;
}

async function registrationAnswer(response: Response): Promise<Record<string, unknown> & { client_id: string }> {
  if (response.status !== 201 && response.status !== 200) {
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    const { error, error_description: description } = (body ?? {}) as Record<string, unknown>;
    throw Object.assign(new Error(`HTTP ${response.status}`), { error, error_description: description });
  }
  const answer: unknown = await response.json();
  if (!isJsonObject(answer) || typeof answer.client_id !== 'string' || !answer.client_id)
    throw new Error('the registration answer names no client_id');
  return answer as Record<string, unknown> & { client_id: string };
}

/** The `grant_types` value (RFC 7591) of each grant but the authorization code's. */
const GRANT_TYPES: Record<string, string> = {
  client_credentials: 'client_credentials',
  jwt_bearer: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
};

const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post']);

function secretAuthentication(supported: readonly string[], secret: string, exchange: OAuthExchange): ClientAuth {
  return !supported.includes('client_secret_basic') && supported.includes('client_secret_post')
    ? exchange.oauth.ClientSecretPost(secret)
    : clientSecretBasic(secret);
}

/**
 * `client_secret_basic` with RFC 6749 §2.3.1's form encoding as WHATWG URLSearchParams does it: `-`, `.`, `_` and `*`
 * stay as they are. oauth4webapi's own encodes them too, which a server that does not decode (many do not) reads as
 * another client id.
 */
export function clientSecretBasic(secret: string): ClientAuth {
  return (_as, client, _body, headers) => {
    const credentials = `${formEncode(client.client_id)}:${formEncode(secret)}`;
    headers.set('authorization', `Basic ${Buffer.from(credentials).toString('base64')}`);
  };
}

function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

async function privateKeyJwt(options: McpOAuthOptions, exchange: OAuthExchange): Promise<ClientAuth> {
  const key = await signingKey(options.privateKey!, options.privateKeyAlgorithm);
  return exchange.oauth.PrivateKeyJwt(key as Parameters<OAuthExchange['oauth']['PrivateKeyJwt']>[0]);
}

/** A private key as a signing `CryptoKey` for `alg` (default: ES256 for an EC P-256 key, RS256 for RSA). */
async function signingKey(key: string | KeyObject, alg: string | undefined): Promise<webcrypto.CryptoKey> {
  let keyObject: KeyObject;
  try {
    keyObject = typeof key === 'string' ? createPrivateKey(key) : key;
  } catch (error) {
    throw new McpAuthorizationError('privateKey is not a PEM private key', { cause: error });
  }
  if (keyObject.type !== 'private') throw new McpAuthorizationError('privateKey is not a private key');
  const algorithm = alg ?? defaultAlgorithm(keyObject);
  const der = keyObject.export({ format: 'der', type: 'pkcs8' });
  return webcrypto.subtle.importKey('pkcs8', der, importParams(algorithm), false, ['sign']);
}

function defaultAlgorithm(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec')
    return curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : 'ES256';
  return 'EdDSA';
}

function importParams(
  alg: string,
): webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams | webcrypto.Algorithm {
  if (alg.startsWith('RS')) return { name: 'RSASSA-PKCS1-v1_5', hash: `SHA-${alg.slice(2)}` };
  if (alg.startsWith('PS')) return { name: 'RSA-PSS', hash: `SHA-${alg.slice(2)}` };
  if (alg.startsWith('ES')) return { name: 'ECDSA', namedCurve: `P-${alg === 'ES512' ? '521' : alg.slice(2)}` };
  if (alg === 'EdDSA' || alg === 'Ed25519') return { name: 'Ed25519' };
  throw new McpAuthorizationError(`Unsupported privateKeyAlgorithm ${JSON.stringify(alg)}`);
}

function sameIssuer(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

function isNativeRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    return (url.protocol !== 'https:' && url.protocol !== 'http:') || LOOPBACK_HOSTNAMES.includes(url.hostname);
  } catch {
    return false;
  }
}

import { createHash, randomBytes, webcrypto } from 'node:crypto';

/** Origins whose last `DPoP-Nonce` is kept. */
const MAX_NONCES = 100;

/**
 * A DPoP key (RFC 9449, ES256) of one OAuth client: oauth4webapi signs the token requests' proofs with its key pair,
 * and `proof` the ones each request to the resource server carries — over that request's method and URL, with the
 * access token's hash (`ath`), a fresh `jti`, and the last nonce that origin asked for.
 */
export class DPoPKey {
  private header: string | undefined;
  private readonly nonces = new Map<string, string>();

  private constructor(readonly keyPair: webcrypto.CryptoKeyPair) {}

  /** A new P-256 key pair (the public half exportable: it goes in every proof's header). */
  static async generate(): Promise<DPoPKey> {
    const keyPair = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
      'sign',
      'verify',
    ]);
    return new DPoPKey(keyPair);
  }

  /** The `DPoP` header of one request: a proof JWT for `method` and `url`, bound to `accessToken` when given. */
  async proof(method: string, url: URL, accessToken?: string): Promise<string> {
    this.header ??= encode({ typ: 'dpop+jwt', alg: 'ES256', jwk: await this.publicJwk() });
    const payload: Record<string, unknown> = {
      jti: randomBytes(16).toString('base64url'),
      htm: method,
      htu: url.origin + url.pathname,
      iat: Math.floor(Date.now() / 1000),
    };
    const nonce = this.nonces.get(url.origin);
    if (nonce !== undefined) payload.nonce = nonce;
    if (accessToken !== undefined) payload.ath = createHash('sha256').update(accessToken).digest('base64url');
    const input = `${this.header}.${encode(payload)}`;
    const signature = await webcrypto.subtle.sign(
      { name: 'ECDSA', hash: 'SHA-256' },
      this.keyPair.privateKey,
      Buffer.from(input),
    );
    return `${input}.${Buffer.from(signature).toString('base64url')}`;
  }

  /** Keeps the nonce a server at `url`'s origin sent (`DPoP-Nonce`), for the next proofs to that origin. */
  rememberNonce(url: URL, nonce: string | null | undefined): void {
    if (!nonce) return;
    this.nonces.delete(url.origin);
    this.nonces.set(url.origin, nonce);
    if (this.nonces.size > MAX_NONCES) this.nonces.delete(this.nonces.keys().next().value!);
  }

  /** The last nonce of `url`'s origin. */
  nonceOf(url: URL): string | undefined {
    return this.nonces.get(url.origin);
  }

  private async publicJwk(): Promise<Record<string, unknown>> {
    const { kty, crv, x, y } = await webcrypto.subtle.exportKey('jwk', this.keyPair.publicKey);
    return { kty, crv, x, y };
  }
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

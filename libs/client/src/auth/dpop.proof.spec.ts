import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { DPoPKey } from './dpop.proof';

describe('DPoPKey', () => {
  it('signs a proof RFC 9449 §4 describes, verifiable with the public key of its header', async () => {
    const key = await DPoPKey.generate();
    const proof = await key.proof('POST', new URL('https://mcp.example.com/mcp?x=1#f'), 'the-token');
    const header = decodeProtectedHeader(proof);
    expect(header).toEqual({
      typ: 'dpop+jwt',
      alg: 'ES256',
      jwk: { kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String) },
    });
    const { payload } = await jwtVerify(proof, await importJWK(header.jwk!, 'ES256'), { typ: 'dpop+jwt' });
    expect(payload).toEqual({
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      htm: 'POST',
      htu: 'https://mcp.example.com/mcp',
      iat: expect.any(Number),
      ath: createHash('sha256').update('the-token').digest('base64url'),
    });
    expect(Math.abs((payload.iat as number) - Date.now() / 1000)).toBeLessThan(5);
    expect(await calculateJwkThumbprint(header.jwk!)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('gives each proof a fresh jti, the same key, and no ath without a token', async () => {
    const key = await DPoPKey.generate();
    const url = new URL('https://as.example.com/token');
    const [first, second] = [await key.proof('POST', url), await key.proof('POST', url)];
    const claims = (proof: string) =>
      JSON.parse(Buffer.from(proof.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    expect(claims(first).jti).not.toEqual(claims(second).jti);
    expect(claims(first).ath).toBeUndefined();
    expect(decodeProtectedHeader(first).jwk).toEqual(decodeProtectedHeader(second).jwk);
  });

  it('carries the last nonce of the URL origin, and only of that origin', async () => {
    const key = await DPoPKey.generate();
    const mcp = new URL('https://mcp.example.com/mcp');
    key.rememberNonce(mcp, 'n-1');
    key.rememberNonce(new URL('https://mcp.example.com/other'), 'n-2');
    key.rememberNonce(mcp, null);
    const claims = (proof: string) =>
      JSON.parse(Buffer.from(proof.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    expect(claims(await key.proof('GET', mcp)).nonce).toBe('n-2');
    expect(claims(await key.proof('GET', new URL('https://elsewhere.example.com/'))).nonce).toBeUndefined();
    expect(key.nonceOf(mcp)).toBe('n-2');
  });
});

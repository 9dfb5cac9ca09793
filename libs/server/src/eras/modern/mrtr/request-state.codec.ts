import { invalidParams } from '@conduit-mcp/core';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ArgumentBounds } from '../../../arguments/argument-bounds';

/** What a round carries to the next one: answers already given and the handler's own state. */
export interface SealedRound {
  answers: Record<string, unknown>;
  state: Record<string, unknown>;
}

/** What a request state is bound to: the originating request and the caller. */
export interface RequestBinding {
  method: string;
  /** Digest of the request's salient params (everything but `_meta`, `inputResponses`, `requestState`). */
  digest: string;
  principal: string | undefined;
}

interface Payload {
  v: 1;
  m: string;
  d: string;
  p?: string;
  x: number;
  a: Record<string, unknown>;
  s: Record<string, unknown>;
}

/** Longest `requestState` accepted or produced. */
export const MAX_REQUEST_STATE_LENGTH = 256 * 1024;

/**
 * Seals the state of a multi round-trip request into an opaque `requestState`: base64url JSON plus an HMAC-SHA256
 * tag, bound to the method, the request's params, the caller's principal and an expiry. Opening checks all of them;
 * a tampered, expired or foreign state is refused with -32602.
 */
export class RequestStateCodec {
  private readonly key: Buffer;

  constructor(
    secret: string | Buffer | undefined,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.key = secret === undefined ? randomBytes(32) : Buffer.from(secret);
    if (this.key.length < 16) throw new Error('requestState.secret must be at least 16 bytes');
  }

  /**
   * A digest of the params a retry must repeat unchanged. Digesting sorts every object's keys, so params past `bounds`
   * are refused with -32602 first rather than digested.
   */
  static digest(params: Record<string, unknown>, bounds?: ArgumentBounds): string {
    const { _meta: _m, inputResponses: _i, requestState: _r, ...salient } = params;
    const refusal = bounds?.check(salient, 'params');
    if (refusal) throw invalidParams(refusal);
    return createHash('sha256').update(canonicalJson(salient)).digest('base64url');
  }

  seal(round: SealedRound, binding: RequestBinding): string {
    const payload: Payload = {
      v: 1,
      m: binding.method,
      d: binding.digest,
      x: this.now() + this.ttlMs,
      a: round.answers,
      s: round.state,
    };
    if (binding.principal !== undefined) payload.p = binding.principal;
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const sealed = `${body}.${this.tag(body)}`;
    if (sealed.length > MAX_REQUEST_STATE_LENGTH)
      throw new Error(`requestState would exceed ${MAX_REQUEST_STATE_LENGTH} characters`);
    return sealed;
  }

  /**
   * The round sealed in `requestState`, if it is intact, unexpired and bound to `binding`. A function as `binding` is
   * called only once the tag is verified, so a forged state costs no digest of the request's params.
   */
  open(requestState: unknown, binding: RequestBinding | (() => RequestBinding)): SealedRound {
    if (typeof requestState !== 'string' || requestState.length > MAX_REQUEST_STATE_LENGTH) throw refused();
    const [body, tag, extra] = requestState.split('.');
    if (!body || !tag || extra !== undefined) throw refused();
    const expected = Buffer.from(this.tag(body));
    const given = Buffer.from(tag);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
    } catch {
      throw refused();
    }
    if (payload.v !== 1 || typeof payload.x !== 'number' || payload.x <= this.now()) throw refused('expired');
    const bound = typeof binding === 'function' ? binding() : binding;
    if (payload.m !== bound.method || payload.d !== bound.digest || payload.p !== bound.principal) {
      throw refused('issued for another request or caller');
    }
    return { answers: payload.a ?? {}, state: payload.s ?? {} };
  }

  private tag(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

function refused(why = 'failed verification'): Error {
  return invalidParams(`Invalid requestState: ${why}`);
}

/** JSON with object keys sorted, so equal values digest equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

import { invalidParams } from '@conduit-mcp/core';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ArgumentBounds } from '../../../arguments/argument-bounds';
import { KEY_ID_LENGTH, SealingKey, SealingKeyRing, secretKeys } from '../../../sealing-key';

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
 * Seals the state of a multi round-trip request into an opaque `requestState`: `<key id>.<base64url JSON>.<tag>`, the
 * tag an HMAC-SHA256 of the rest, bound to the method, the request's params, the caller's principal and an expiry.
 * The first key seals; any key of the ring opens what names it by id, so states outlive a rotation. Opening checks all
 * of them; a tampered, expired or foreign state, or one naming an unknown key, is refused with -32602.
 */
export class RequestStateCodec {
  private readonly keys: SealingKeyRing;

  /** `secret` as `requestState.secret` takes it (one key, or a list whose first seals); none: a random key. */
  constructor(
    secret: string | Buffer | readonly (string | Buffer)[] | undefined,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = new SealingKeyRing(secret === undefined ? [randomBytes(32)] : secretKeys(secret), 'request-state');
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
    const { id, key } = this.keys.sealing;
    const sealed = `${id}.${body}.${tag(key, id, body)}`;
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
    // A state without a key id (`<body>.<tag>`, sealed before key ids) opens with the sealing key alone, the one key
    // there was unless a rotation began since. One naming an unknown key reads as such a state: its extra dot
    // refuses it.
    const named: SealingKey | undefined = this.keys.keyOf(requestState);
    const start = named ? KEY_ID_LENGTH + 1 : 0;
    const dot = requestState.indexOf('.', start);
    if (dot <= start || dot === requestState.length - 1 || requestState.indexOf('.', dot + 1) !== -1) throw refused();
    const body = requestState.slice(start, dot);
    const expected = Buffer.from(named ? tag(named.key, named.id, body) : tag(this.keys.sealing.key, undefined, body));
    const given = Buffer.from(requestState.slice(dot + 1));
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
}

/**
 * The tag of `<id>.<body>` under `key`; of `body` alone without an id (states sealed before key ids). A body holds no
 * dot, so no tag of one format is a tag of the other.
 */
function tag(key: Buffer, id: string | undefined, body: string): string {
  const hmac = createHmac('sha256', key);
  if (id !== undefined) hmac.update(id).update('.');
  return hmac.update(body).digest('base64url');
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

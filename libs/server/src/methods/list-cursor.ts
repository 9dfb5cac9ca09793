import { invalidParams } from '@conduit-mcp/core';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { KEY_ID_LENGTH, SealingKey, SealingKeyRing } from '../sealing-key';

/** Longest cursor read; the longest one issued is far shorter. */
const MAX_CURSOR_LENGTH = 256;
/** Bytes of HMAC-SHA256 kept in a cursor's tag. */
const TAG_BYTES = 16;
/** Derives the cursor subkey, so that no cursor tag is ever a valid tag of anything else signed with the key. */
const SUBKEY_LABEL = 'conduit-mcp/list-cursor/v1';

/**
 * The cursors of one list (`tools`, `prompts`…): opaque strings
 * `<key id>.<base64url JSON { l: list, o: offset }>.<tag>`, the tag an HMAC-SHA256 of the rest under a subkey of one of
 * the server's sealing keys — the first makes cursors, any opens those naming it, so cursors outlive a rotation. A
 * cursor not issued for this list — empty, malformed, edited, forged, another list's, or naming an unknown key — is
 * refused with -32602.
 */
export class ListCursors {
  private ring: SealingKeyRing | undefined;

  /** `keys` (one key, or the server's keys, the first sealing) are read once, when the first cursor is made or read. */
  constructor(
    private readonly list: string,
    private readonly keys: () => Buffer | readonly Buffer[],
  ) {}

  encode(offset: number): string {
    const body = Buffer.from(JSON.stringify({ l: this.list, o: offset })).toString('base64url');
    const { id, key } = this.keyRing().sealing;
    return `${id}.${body}.${tag(key, id, body)}`;
  }

  /** The offset `cursor` was issued for; throws -32602 unless this list issued it. */
  decode(cursor: unknown): number {
    if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH) throw refused();
    // A cursor without a key id (`<body>.<tag>`, made before key ids) opens with the sealing key alone, the one key
    // there was unless a rotation began since. One naming an unknown key reads as such a cursor: its extra dot
    // refuses it.
    const ring = this.keyRing();
    const named: SealingKey | undefined = ring.keyOf(cursor);
    const start = named ? KEY_ID_LENGTH + 1 : 0;
    const dot = cursor.indexOf('.', start);
    if (dot <= start || cursor.indexOf('.', dot + 1) !== -1) throw refused();
    const body = cursor.slice(start, dot);
    const given = Buffer.from(cursor.slice(dot + 1));
    const expected = Buffer.from(named ? tag(named.key, named.id, body) : tag(ring.sealing.key, undefined, body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
    // Signed by us, so well-formed; checked all the same, as the payload format may change across versions.
    let payload: { l?: unknown; o?: unknown };
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof payload;
    } catch {
      throw refused();
    }
    if (payload?.l !== this.list || !Number.isSafeInteger(payload.o) || (payload.o as number) < 0) throw refused();
    return payload.o as number;
  }

  private keyRing(): SealingKeyRing {
    if (!this.ring) {
      const keys = this.keys();
      this.ring = new SealingKeyRing(
        Buffer.isBuffer(keys) ? [keys] : (keys as readonly Buffer[]),
        'list-cursor',
        (key) => createHmac('sha256', key).update(SUBKEY_LABEL).digest(),
      );
    }
    return this.ring;
  }
}

/**
 * The tag of `<id>.<body>` under `subkey`; of `body` alone without an id (cursors made before key ids). A body holds
 * no dot, so no tag of one format is a tag of the other.
 */
function tag(subkey: Buffer, id: string | undefined, body: string): string {
  const hmac = createHmac('sha256', subkey);
  if (id !== undefined) hmac.update(id).update('.');
  return hmac.update(body).digest().subarray(0, TAG_BYTES).toString('base64url');
}

function refused(): Error {
  return invalidParams('Invalid cursor');
}

import { invalidParams } from '@conduit-mcp/core';
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Longest cursor read; the longest one issued is far shorter. */
const MAX_CURSOR_LENGTH = 256;
/** Bytes of HMAC-SHA256 kept in a cursor's tag. */
const TAG_BYTES = 16;
/** Derives the cursor subkey, so that no cursor tag is ever a valid tag of anything else signed with the key. */
const SUBKEY_LABEL = 'conduit-mcp/list-cursor/v1';

/**
 * The cursors of one list (`tools`, `prompts`…): opaque strings `<base64url JSON { l: list, o: offset }>.<tag>`, the
 * tag an HMAC-SHA256 under a subkey of the server's sealing key. A cursor not issued for this list — empty, malformed,
 * edited, forged, or another list's — is refused with -32602.
 */
export class ListCursors {
  private subkey: Buffer | undefined;

  /** `key` is read once, when the first cursor is made or read. */
  constructor(
    private readonly list: string,
    private readonly key: () => Buffer,
  ) {}

  encode(offset: number): string {
    const body = Buffer.from(JSON.stringify({ l: this.list, o: offset })).toString('base64url');
    return `${body}.${this.tag(body)}`;
  }

  /** The offset `cursor` was issued for; throws -32602 unless this list issued it. */
  decode(cursor: unknown): number {
    if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH) throw refused();
    const dot = cursor.indexOf('.');
    if (dot <= 0) throw refused();
    const body = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1));
    const expected = Buffer.from(this.tag(body));
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

  private tag(body: string): string {
    this.subkey ??= createHmac('sha256', this.key()).update(SUBKEY_LABEL).digest();
    return createHmac('sha256', this.subkey).update(body).digest().subarray(0, TAG_BYTES).toString('base64url');
  }
}

function refused(): Error {
  return invalidParams('Invalid cursor');
}

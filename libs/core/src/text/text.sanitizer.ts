const ELLIPSIS = '…';

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * Makes an untrusted string safe to echo on a single line (errors, logs, notifications).
 *
 * Removes C0 controls except tab (so also CR and LF), DEL, C1 controls, bidi controls,
 * zero-width characters and the U+2028/U+2029 separators; replaces lone surrogates with U+FFFD;
 * and clamps the result to `maxChars` code points, the last of which is `…` when clamped.
 * A value that is not a string yields `''`, so callers can pass fields of unknown type.
 */
export function sanitizeText(input: unknown, maxChars = 256): string {
  if (typeof input !== 'string' || maxChars <= 0) return '';
  const kept: string[] = [];
  for (const char of input) {
    const code = char.codePointAt(0) as number;
    if (isStripped(code)) continue;
    if (kept.length === maxChars) {
      kept[maxChars - 1] = ELLIPSIS;
      break;
    }
    // for..of yields a lone surrogate as a one-unit string.
    kept.push(code >= 0xd800 && code <= 0xdfff ? '\uFFFD' : char);
  }
  return kept.join('');
}

/** Decodes UTF-8 bytes, turning each invalid sequence into U+FFFD instead of failing; a leading BOM is dropped. */
export function sanitizeUtf8(buf: Uint8Array): string {
  return utf8.decode(buf);
}

function isStripped(code: number): boolean {
  return (
    (code < 0x20 && code !== 0x09) ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x2060 ||
    code === 0x061c ||
    code === 0xfeff
  );
}

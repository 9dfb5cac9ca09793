/** One server-sent event. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** An event to encode, optionally telling the client how long to wait before reconnecting. */
export interface SseOutgoingEvent extends SseEvent {
  /** Reconnection delay in milliseconds. */
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Encodes one event. Multi-line data becomes several `data:` lines (the client rejoins them
 * with `\n`). Throws when `id` or `event` contains CR, LF (or NUL, for `id`), which would
 * let a value inject fields, or when `retry` is not a non-negative integer.
 */
export function encodeSseEvent({ id, event, data, retry }: SseOutgoingEvent): string {
  let out = '';
  if (id !== undefined) {
    if (/[\r\n\0]/.test(id)) throw new Error('SSE id must not contain CR, LF or NUL');
    out += `id: ${id}\n`;
  }
  if (event !== undefined) {
    if (/[\r\n]/.test(event)) throw new Error('SSE event name must not contain CR or LF');
    out += `event: ${event}\n`;
  }
  if (retry !== undefined) {
    if (!Number.isSafeInteger(retry) || retry < 0) throw new Error('SSE retry must be a non-negative integer');
    out += `retry: ${retry}\n`;
  }
  // JSON as JSON.stringify writes it has no line break (it escapes them): one line, without splitting.
  if (data.indexOf('\n') === -1 && data.indexOf('\r') === -1) return `${out}data: ${data}\n\n`;
  for (const line of data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** Encodes a comment (ignored by clients; useful as a keep-alive), one `:` line per line of text. */
export function encodeSseComment(text: string): string {
  return `${text
    .split(LINE_BREAK)
    .map((line) => `: ${line}\n`)
    .join('')}\n`;
}

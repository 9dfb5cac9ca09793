import { serializeMessage } from '../jsonrpc/jsonrpc.serializer';

const NEWLINE = 0x0a;

/** One result of {@link LineFramer.push}: a complete line, or notice that an oversize line was discarded. */
export type FramedLine = { line: string } | { overflow: true };

/** Options of a {@link LineFramer}. */
export interface LineFramerOptions {
  /** Longest line accepted, in bytes, excluding the newline. Default 10 MiB. */
  maxLineBytes?: number;
}

/**
 * Splits a byte stream into newline-delimited lines. Bytes are kept until the newline and the
 * whole line is decoded at once, so a UTF-8 character split across chunks decodes correctly
 * (invalid bytes become U+FFFD). A trailing `\r` is removed and blank lines are skipped.
 *
 * A line longer than `maxLineBytes` is discarded up to its newline and reported once, in order,
 * as `{ overflow: true }` as soon as it crosses the limit.
 */
export class LineFramer {
  private readonly maxLineBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;

  constructor({ maxLineBytes = 10 * 1024 * 1024 }: LineFramerOptions = {}) {
    this.maxLineBytes = maxLineBytes;
  }

  /** Feeds a chunk and returns what it completed. */
  push(chunk: Buffer): FramedLine[] {
    const out: FramedLine[] = [];
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline !== -1 && this.pendingBytes === 0 && !this.discarding) {
        // The whole line is in this chunk (the usual case): decoded in place, no copy.
        if (newline - start > this.maxLineBytes) out.push({ overflow: true });
        else this.emit(chunk.toString('utf8', start, newline), out);
        start = newline + 1;
        continue;
      }
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end), out);
      if (newline === -1) break;
      this.finishLine(out);
      start = newline + 1;
    }
    return out;
  }

  private take(bytes: Buffer, out: FramedLine[]): void {
    if (this.discarding || bytes.length === 0) return;
    if (this.pendingBytes + bytes.length > this.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      out.push({ overflow: true });
      return;
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private finishLine(out: FramedLine[]): void {
    if (!this.discarding) this.emit(Buffer.concat(this.pending, this.pendingBytes).toString('utf8'), out);
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
  }

  private emit(text: string, out: FramedLine[]): void {
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim() !== '') out.push({ line });
  }
}

/** Serializes one message as a line; JSON escapes raw newlines, so the only `\n` is the terminator. */
export function serializeLine(message: object): string {
  return `${serializeMessage(message)}\n`;
}

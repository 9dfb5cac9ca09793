/** Keeps the last `capacity` bytes written to it (a child's stderr, for diagnostics). */
export class ByteRing {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly capacity: number) {}

  push(chunk: Buffer): void {
    if (chunk.length >= this.capacity) {
      this.chunks = [Buffer.from(chunk.subarray(chunk.length - this.capacity))];
      this.size = this.capacity;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0].length >= this.capacity) this.size -= (this.chunks.shift() as Buffer).length;
    if (this.size > this.capacity) {
      this.chunks[0] = this.chunks[0].subarray(this.size - this.capacity);
      this.size = this.capacity;
    }
  }

  /** The bytes kept, decoded as UTF-8 (a character cut at the start becomes U+FFFD). */
  toString(): string {
    return Buffer.concat(this.chunks, this.size).toString('utf8');
  }
}

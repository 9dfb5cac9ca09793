/**
 * Reads a whole fetch `Response` body, at most `maxBytes` of it: past that (declared by `Content-Length`, or as it
 * arrives) the rest is cancelled and `tooLarge()` is thrown. For anything read from a peer that is not trusted to be
 * small (an MCP server's answer, an authorization server's metadata).
 *
 * @example
 * ```ts
 * const text = (await readBoundedResponse(response, 64 * 1024, () => new Error('too large'))).toString('utf8');
 * ```
 */
export async function readBoundedResponse(
  response: Response,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
}

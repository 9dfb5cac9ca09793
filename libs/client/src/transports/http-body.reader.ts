import { SseEvent, SseParser, readBoundedResponse } from '@conduit-mcp/core';
import { MessageTooLargeError } from './client-transport.errors';

/** The media type of a response, lower-cased and without parameters (`text/event-stream`). */
export function mediaTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

/** Reads a whole body, failing with {@link MessageTooLargeError} (and cancelling the rest) past `maxBytes`. */
export function readBoundedBody(response: Response, maxBytes: number): Promise<Buffer> {
  return readBoundedResponse(response, maxBytes, () => new MessageTooLargeError(maxBytes));
}

/**
 * Reads an SSE body to its end, handing each event to `onEvent` as it completes. An event whose data exceeds
 * `maxBytes` (or an unfinished one that grows past it) fails with {@link MessageTooLargeError}; the body is then
 * cancelled. Rejects as the body does when the connection drops or its fetch is aborted. `parser.retry` holds
 * the server's latest `retry:`.
 */
export async function readSseBody(
  response: Response,
  parser: SseParser,
  maxBytes: number,
  onEvent: (event: SseEvent) => void,
): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    let events: SseEvent[];
    try {
      events = parser.feed(value);
    } catch {
      void reader.cancel().catch(() => undefined);
      throw new MessageTooLargeError(maxBytes);
    }
    for (const event of events) {
      if (Buffer.byteLength(event.data) > maxBytes) {
        void reader.cancel().catch(() => undefined);
        throw new MessageTooLargeError(maxBytes);
      }
      onEvent(event);
    }
  }
}

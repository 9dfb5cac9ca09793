import { createParser } from 'eventsource-parser';

// A bare legacy-era (2025-11-25) Streamable HTTP client over fetch, for tests that choose the instance (URL) of each
// request themselves: several instances of one server, or a load balancer in front of them.

export const LEGACY = '2025-11-25';
const JSON_AND_SSE = 'application/json, text/event-stream';

/** The headers of a legacy request, with the session's id when there is one. */
export function legacyHeaders(sessionId?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: JSON_AND_SSE,
    'mcp-protocol-version': LEGACY,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
  };
}

/** A POST answered in JSON (or an empty 202). */
export async function legacyPost(url: string, body: unknown, sessionId?: string) {
  const response = await fetch(url, { method: 'POST', headers: legacyHeaders(sessionId), body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

export interface SseEvent {
  id?: string;
  message: Record<string, any>;
}

/** Reads an SSE response, event by event, into `events`; `done` settles when the stream ends (or is cut). */
export function readSse(response: Response) {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (event) => {
      if (event.data) events.push({ id: event.id, message: JSON.parse(event.data) });
    },
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    try {
      for (;;) {
        const { value, done: ended } = await reader.read();
        if (ended) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // the connection was cut: what arrived is in `events`
    }
  })();
  return { events, done, cancel: () => reader.cancel().catch(() => undefined) };
}

/** Resolves with what `probe` finds, polling; rejects after `timeoutMs`. */
export async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `initialize` + `notifications/initialized` on `url`; the session's id. */
export async function openLegacySession(url: string, capabilities: Record<string, unknown> = {}): Promise<string> {
  const opened = await legacyPost(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities, clientInfo: { name: 'roamer', version: '1' } },
  });
  if (opened.status !== 200) throw new Error(`initialize answered ${opened.status}: ${JSON.stringify(opened.json)}`);
  const sessionId = opened.headers.get('mcp-session-id');
  if (!sessionId) throw new Error('initialize answered without Mcp-Session-Id');
  const initialized = await legacyPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
  return sessionId;
}

/** A `tools/call` POSTed to `url`, its SSE answer read as it comes. */
export async function streamToolCall(
  url: string,
  sessionId: string,
  id: number,
  name: string,
  args: Record<string, unknown> = {},
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: legacyHeaders(sessionId),
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
  if (response.status !== 200 || !response.headers.get('content-type')?.includes('text/event-stream'))
    throw new Error(`tools/call ${name} answered ${response.status} ${response.headers.get('content-type')}`);
  return readSse(response);
}

/** A GET stream of the session (standalone, or resuming after `lastEventId`). */
export async function openGetStream(url: string, sessionId: string, lastEventId?: string) {
  const response = await fetch(url, {
    headers: {
      ...legacyHeaders(sessionId),
      accept: 'text/event-stream',
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
  });
  return { status: response.status, stream: response.status === 200 ? readSse(response) : undefined };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

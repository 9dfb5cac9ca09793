import { channel } from 'node:diagnostics_channel';
import { since } from './handler-events';
import { MCP_CHANNELS, McpSessionEvent, McpStreamEvent } from './mcp.channels';

/*
 * Sessions and SSE streams opening and closing on this instance, for gauges of what is open and histograms of how
 * long it stayed open. Published from where they live (LiveSessions, the HTTP transports), which are not Nest
 * providers of their own; nothing is built unless someone subscribes.
 */

const sessions = channel(MCP_CHANNELS.session);
const streams = channel(MCP_CHANNELS.stream);

/** Whether anyone subscribes to `conduit-mcp:session`. */
export function sessionsObserved(): boolean {
  return sessions.hasSubscribers;
}

/** Whether anyone subscribes to `conduit-mcp:stream`. */
export function streamsObserved(): boolean {
  return streams.hasSubscribers;
}

export function publishSessionEvent(event: McpSessionEvent): void {
  if (sessions.hasSubscribers) sessions.publish(event);
}

/**
 * Publishes a stream's `opened` now (when someone listens) and returns what publishes its `closed`, with how long
 * it was open; a stream opened while nobody listened is not reported when it closes either (gauges stay balanced).
 */
export function openedStream(server: string, kind: McpStreamEvent['kind']): () => void {
  if (!streams.hasSubscribers) return noop;
  const opened = performance.now();
  streams.publish({ server, type: 'opened', kind } satisfies McpStreamEvent);
  let closed = false;
  return () => {
    if (closed) return;
    closed = true;
    streams.publish({ server, type: 'closed', kind, durationMs: since(opened) } satisfies McpStreamEvent);
  };
}

const noop = (): void => undefined;

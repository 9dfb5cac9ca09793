/**
 * W3C trace context carried in a request's `params._meta`: the unprefixed keys `traceparent` and `tracestate`, the
 * convention of the MCP specification and of the OpenTelemetry MCP semantic conventions.
 */
export interface TraceContextMeta {
  traceparent?: string;
  tracestate?: string;
}

// Version 00 only (a later version may add fields this reader does not know); an all-zero trace or parent id is
// invalid (W3C Trace Context §3.2.2.3, §3.2.2.4).
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
// Printable ASCII, bounded: W3C allows 32 list members of up to 256 characters each, but 512 is what a propagator
// must keep (§3.3.1.5) and what this project passes on.
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/** The `traceparent` and `tracestate` of `meta` (a request's `_meta`), each kept only when well formed. */
export function readTraceContext(meta: unknown): TraceContextMeta {
  if (typeof meta !== 'object' || meta === null) return {};
  const { traceparent, tracestate } = meta as Record<string, unknown>;
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return {};
  return typeof tracestate === 'string' && TRACESTATE.test(tracestate) ? { traceparent, tracestate } : { traceparent };
}

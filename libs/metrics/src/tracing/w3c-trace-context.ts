import { Context, SpanContext, createTraceState, isSpanContextValid, trace } from '@opentelemetry/api';

/*
 * W3C Trace Context (version 00) read from and written to a request's `params._meta`, without a propagator: the
 * publishers already checked what they hand over, and a global propagator may not be registered (or may not be W3C).
 */

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The remote span context of `traceparent` (and `tracestate`), or undefined when it is not a valid one. */
export function parseTraceparent(traceparent: string | undefined, tracestate?: string): SpanContext | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const spanContext: SpanContext = {
    traceId: match[1],
    spanId: match[2],
    traceFlags: parseInt(match[3], 16),
    isRemote: true,
    traceState: tracestate ? createTraceState(tracestate) : undefined,
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * `base` with the remote parent of `traceparent` as its span, or `base` itself when there is none. The rest of `base`
 * is kept (baggage, a suppressed-tracing mark), as a propagator's `extract` keeps it.
 */
export function withRemoteParent(base: Context, traceparent: string | undefined, tracestate?: string): Context {
  const remote = parseTraceparent(traceparent, tracestate);
  return remote ? trace.setSpanContext(base, remote) : base;
}

/** The `traceparent` of a span context: `00-{trace id}-{span id}-{flags}`. */
export function formatTraceparent(spanContext: SpanContext): string {
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

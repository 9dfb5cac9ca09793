import { publishTraceEnd, readTraceContext, sanitizeText, tracingObserved } from '@conduit-mcp/core';
import { tracingChannel } from 'node:diagnostics_channel';
import { MCP_CHANNELS, McpRequestTarget, McpRequestTrace } from './mcp.channels';

/*
 * The tracing channel of requests (McpRequestTrace), published by the dispatcher: `start` with its bound stores
 * entered around the route, so that whatever the handler does runs inside them (an OpenTelemetry subscriber's request
 * span becomes the parent of the handler's); the handler's run fills the request's `target` when it settles.
 * Nothing is built unless someone subscribes (`requestTraced`).
 */

const tracing = tracingChannel<unknown, McpRequestTrace>(MCP_CHANNELS.request);

// The trace of each traced request, by its handler context: the handler's run names its target there.
const traces = new WeakMap<object, McpRequestTrace>();

/** Whether anyone subscribes to the request tracing channel (any of its sub-channels, or a store bound to `start`). */
export function requestTraced(): boolean {
  return tracingObserved(tracing);
}

/** What the dispatcher knows of a request when its trace opens. */
export interface RequestTraceInit {
  server: string;
  method: string;
  routed: boolean;
  era: 'legacy' | 'modern';
  protocolVersion: string | undefined;
  transport: string;
  id: string | number;
  sessionId: string | undefined;
  meta: unknown;
}

/** A new trace for a request (call only while `requestTraced()`). */
export function requestTraceOf(init: RequestTraceInit): McpRequestTrace {
  const { traceparent, tracestate } = readTraceContext(init.meta);
  const trace: McpRequestTrace = {
    server: init.server,
    method: sanitizeText(init.method, 128),
    routed: init.routed,
    era: init.era,
    transport: init.transport,
    requestId: typeof init.id === 'string' ? sanitizeText(init.id, 128) : String(init.id),
  };
  if (init.protocolVersion !== undefined) trace.protocolVersion = init.protocolVersion;
  if (init.sessionId !== undefined) trace.sessionId = init.sessionId;
  if (traceparent !== undefined) trace.traceparent = traceparent;
  if (tracestate !== undefined) trace.tracestate = tracestate;
  return trace;
}

/**
 * Runs the request's route `fn` inside the trace's `start` (its bound stores entered around it), then publishes
 * `end`. `scope` is the request's handler context: the handler's run finds the trace through it.
 */
export function runTracedRequest<T>(trace: McpRequestTrace, scope: object, fn: () => T): T {
  traces.set(scope, trace);
  return tracing.start.runStores(trace, () => {
    try {
      return fn();
    } finally {
      tracing.end.publish(trace);
    }
  });
}

/** Publishes `start` and `end` of a request refused before it reached a route. */
export function refusedRequest(trace: McpRequestTrace): void {
  tracing.start.runStores(trace, () => tracing.end.publish(trace));
}

/** Ends the request's trace: its outcome, then `error` (unless it succeeded), `asyncStart`, `asyncEnd`. */
export function settleRequest(
  trace: McpRequestTrace,
  status: NonNullable<McpRequestTrace['status']>,
  errorCode: number | undefined,
  durationMs: number,
): void {
  trace.status = status;
  if (errorCode !== undefined) trace.errorCode = errorCode;
  trace.durationMs = durationMs;
  publishTraceEnd(tracing, trace, status !== 'ok');
}

/** Names what the request of handler context `scope` ran, if it is traced and still running. */
export function setRequestTarget(scope: object, target: McpRequestTarget): void {
  const trace = traces.get(scope);
  if (trace && trace.status === undefined) trace.target = target;
}

import { JsonRpcId, publishTraceEnd, readTraceContext, sanitizeText, tracingObserved } from '@conduit-mcp/core';
import { channel, tracingChannel } from 'node:diagnostics_channel';
import { McpClientError } from '../errors/mcp-client.error';
import { McpInputRefusal } from '../connection/input-responder.interface';
import { ClientTransport } from '../transports/client-transport.interface';
import {
  MCP_CLIENT_CHANNELS,
  McpClientInputEvent,
  McpClientInputTrace,
  McpClientRequestEvent,
  McpClientRequestTrace,
} from './mcp-client.channels';
import { sessionIdOf, transportKindOf } from './transport.facts';

/*
 * The client's events, each on a plain channel (McpClientRequestEvent, McpClientInputEvent) and on the tracing
 * channel of the same name (McpClientRequestTrace, McpClientInputTrace). Nothing is built, timed or wrapped unless
 * someone listens on one of them.
 */

const requests = channel(MCP_CLIENT_CHANNELS.request);
const inputs = channel(MCP_CLIENT_CHANNELS.input);
const requestTraces = tracingChannel<unknown, McpClientRequestTrace>(MCP_CLIENT_CHANNELS.request);
const inputTraces = tracingChannel<unknown, McpClientInputTrace>(MCP_CLIENT_CHANNELS.input);

/** The params whose `name` is a request's target. */
const NAMED = new Set(['tools/call', 'prompts/get']);

/** Who a request or question belongs to. */
export type ClientEventScope = Pick<McpClientRequestEvent, 'client' | 'server' | 'method' | 'era'>;

/** Whether anyone listens for requests, plain or traced: when nobody does, nothing is timed or wrapped. */
export function requestsObserved(): boolean {
  return requests.hasSubscribers || tracingObserved(requestTraces);
}

/** What a request is, when it is about to be built and sent. */
export interface RequestFacts {
  scope: ClientEventScope;
  id: JsonRpcId;
  /** The caller's params (`initialize` names the revision it asks for there). */
  params: Record<string, unknown>;
  transport: ClientTransport;
  /** The connection's revision, when known. */
  revision: string | undefined;
}

/** A request under observation: its scope, when it started, and its trace while the tracing channel is subscribed. */
export interface ObservedRequest {
  readonly scope: ClientEventScope;
  readonly started: number;
  readonly trace?: McpClientRequestTrace;
}

/**
 * Opens the observation of a request before it is built (call only while `requestsObserved()`): its trace's `start`
 * and `end` are published here, synchronously in the caller's async context, so that a `start` subscriber sees the
 * caller's context and may fill `traceContext` before the request is written.
 */
export function observeRequest(facts: RequestFacts): ObservedRequest {
  const trace = tracingObserved(requestTraces) ? requestTraceOf(facts) : undefined;
  if (trace) {
    requestTraces.start.publish(trace);
    requestTraces.end.publish(trace);
  }
  return { scope: facts.scope, started: performance.now(), trace };
}

function requestTraceOf({ scope, id, params, transport, revision }: RequestFacts): McpClientRequestTrace {
  const trace: McpClientRequestTrace = {
    ...scope,
    requestId: String(id),
    transport: transportKindOf(transport),
    traceContext: {},
  };
  if (NAMED.has(scope.method) && typeof params.name === 'string') trace.target = sanitizeText(params.name, 128);
  // initialize is sent before the connection knows its revision (or while it still holds the one an era probe tried).
  const protocolVersion =
    scope.method === 'initialize' && typeof params.protocolVersion === 'string' ? params.protocolVersion : revision;
  if (protocolVersion !== undefined) trace.protocolVersion = protocolVersion;
  const sessionId = sessionIdOf(transport);
  if (sessionId !== undefined) trace.sessionId = sessionId;
  return trace;
}

/**
 * `params` with the trace context a `start` subscriber set in `trace`, as `_meta.traceparent` / `tracestate`, when it
 * is well formed; `params` and its `_meta` are copied, never changed.
 */
export function withTraceContext(
  params: Record<string, unknown>,
  trace: McpClientRequestTrace,
): Record<string, unknown> {
  const context = readTraceContext(trace.traceContext);
  if (context.traceparent === undefined) return params;
  const meta: Record<string, unknown> = Object.assign({}, params._meta as Record<string, unknown> | undefined, context);
  // The pair comes from one place: a tracestate of the caller's does not go with another traceparent.
  if (context.tracestate === undefined) delete meta.tracestate;
  return Object.assign({}, params, { _meta: meta });
}

/** `settled`, reporting its outcome on the request channels (call only with what `observeRequest` opened). */
export function reportRequest<T>(settled: Promise<T>, observed: ObservedRequest): Promise<T> {
  return settled.then(
    (value) => (requestSettled(observed), value),
    (error: unknown) => {
      requestSettled(observed, { error });
      throw error;
    },
  );
}

// The trace's outcome, then `error` (if it failed), `asyncStart`, `asyncEnd`; then the plain event.
function requestSettled({ scope, started, trace }: ObservedRequest, failure?: { error: unknown }): void {
  const durationMs = performance.now() - started;
  const status = failure ? 'error' : 'ok';
  const error = failure?.error instanceof McpClientError ? failure.error : undefined;
  if (trace) {
    trace.status = status;
    if (error) {
      trace.errorKind = error.kind;
      if (error.code !== undefined) trace.errorCode = error.code;
    }
    trace.durationMs = durationMs;
    if (failure) trace.error = failure.error;
    publishTraceEnd(requestTraces, trace, failure !== undefined);
  }
  if (!requests.hasSubscribers) return;
  const event: McpClientRequestEvent = { ...scope, status, durationMs };
  if (error) {
    event.errorKind = error.kind;
    if (error.code !== undefined) event.errorCode = error.code;
  }
  requests.publish(event);
}

/**
 * Answers a question through `answer`, reporting it on the input channels when someone listens: `ok`, `refused` (an
 * `McpInputRefusal`, with its code), `cancelled` (its signal aborted), else `error`. While the tracing channel is
 * subscribed, `answer` runs inside the stores bound to its `start`; `meta` is the `_meta` of the server's request
 * (legacy era), whose trace context the trace carries.
 */
export function reportInput<T>(
  scope: ClientEventScope,
  signal: AbortSignal | undefined,
  answer: () => Promise<T>,
  meta?: unknown,
): Promise<T> {
  return inputs.hasSubscribers || tracingObserved(inputTraces) ? observedInput(scope, signal, answer, meta) : answer();
}

async function observedInput<T>(
  scope: ClientEventScope,
  signal: AbortSignal | undefined,
  answer: () => Promise<T>,
  meta: unknown,
): Promise<T> {
  const trace: McpClientInputTrace | undefined = tracingObserved(inputTraces)
    ? { ...scope, traceContext: readTraceContext(meta) }
    : undefined;
  const started = performance.now();
  const publish = (status: McpClientInputEvent['status'], errorCode?: number) => {
    const durationMs = performance.now() - started;
    if (trace) inputSettled(trace, status, errorCode, durationMs);
    if (!inputs.hasSubscribers) return;
    const event: McpClientInputEvent = { ...scope, status, durationMs };
    if (errorCode !== undefined) event.errorCode = errorCode;
    inputs.publish(event);
  };
  try {
    const value = await (trace ? answerTraced(trace, answer) : answer());
    publish('ok');
    return value;
  } catch (error) {
    if (signal?.aborted) publish('cancelled');
    else if (error instanceof McpInputRefusal) publish('refused', error.code);
    else
      publish(
        'error',
        typeof (error as { code?: unknown })?.code === 'number' ? (error as { code: number }).code : undefined,
      );
    throw error;
  }
}

/** `start` with its bound stores entered around `answer` (the handler's whole async flow inherits them), then `end`. */
function answerTraced<T>(trace: McpClientInputTrace, answer: () => Promise<T>): Promise<T> {
  return inputTraces.start.runStores(trace, () => {
    try {
      return answer();
    } finally {
      inputTraces.end.publish(trace);
    }
  });
}

function inputSettled(
  trace: McpClientInputTrace,
  status: McpClientInputEvent['status'],
  errorCode: number | undefined,
  durationMs: number,
): void {
  trace.status = status;
  if (errorCode !== undefined) trace.errorCode = errorCode;
  trace.durationMs = durationMs;
  publishTraceEnd(inputTraces, trace, status !== 'ok');
}

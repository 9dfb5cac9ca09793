import { ErrorCode, McpError, publishTraceEnd, sanitizeText, tracingObserved } from '@conduit-mcp/core';
import { channel, tracingChannel } from 'node:diagnostics_channel';
import { isClientHttpError, toMcpError } from '../dispatch/error.mapper';
import { McpInputRequired } from '../eras/modern/mrtr/input-required.signal';
import { McpToolError } from '../errors/mcp-tool.error';
import {
  MCP_CHANNELS,
  McpHandlerEvent,
  McpHandlerKind,
  McpHandlerTrace,
  McpOutcome,
  McpRequestTarget,
} from './mcp.channels';
import { setRequestTarget } from './request-events';

/*
 * The one place that builds and publishes the events of tool, resource and prompt runs, on the plain channel
 * (McpHandlerEvent) and the tracing channel (McpHandlerTrace) of their kind. Two callers:
 *
 * - McpTelemetryInterceptor, first around every handler: opens the run (`openHandlerRun`, `runHandler`: `start`,
 *   with the bound stores entered around the handler, then `end`) and reports how the handler's pipeline settled
 *   (`handlerRunSettled`).
 * - The method that invoked the handler (`trackHandlerCall`): when it awaits the call, it settles the run itself once
 *   its outcome is known — after exception filters, result normalization and output checks, as the client gets it —
 *   and publishes the whole event of a call that never reached the interceptor (invalid arguments, a guard's refusal)
 *   or never reached a handler (`publishUnreachedCall`: unknown name).
 *
 * A run that settles names its request's target on the request's trace (request-events.ts).
 *
 * Nothing is built, timed or registered unless someone listens (`handlerObserved`). When only the request tracing
 * channel is observed, a call only names its request's target (`trackRequestTarget`), without a run of its own.
 */

const plain = {
  tool: channel(MCP_CHANNELS.tool),
  resource: channel(MCP_CHANNELS.resource),
  prompt: channel(MCP_CHANNELS.prompt),
};
const tracing = {
  tool: tracingChannel<unknown, McpHandlerTrace>(MCP_CHANNELS.tool),
  resource: tracingChannel<unknown, McpHandlerTrace>(MCP_CHANNELS.resource),
  prompt: tracingChannel<unknown, McpHandlerTrace>(MCP_CHANNELS.prompt),
};

/** Whether anyone listens for `kind` events: on its plain channel, or on any channel of its tracing channel. */
export function handlerObserved(kind: McpHandlerKind): boolean {
  return plain[kind].hasSubscribers || tracingObserved(tracing[kind]);
}

/** Publishes an event on the plain channel of `kind` only. */
export function publishHandlerEvent(kind: McpHandlerKind, event: McpHandlerEvent): void {
  if (plain[kind].hasSubscribers) plain[kind].publish(event);
}

/** Who a call is for: the request's context (an McpRequestContext). */
export interface McpCallScope {
  readonly cancelled: boolean;
  readonly era: 'legacy' | 'modern';
  readonly requestId: string | number | null;
  readonly sessionId: string;
}

/** What a run is about: its server, and the tool, resource or prompt. */
export type McpCallIdentity = Pick<McpHandlerEvent, 'server' | 'name' | 'template'>;

/** How a call ended. `abandoned`: its pipeline was unsubscribed from before it settled. */
export type McpCallSettlement = { result: unknown } | { error: unknown } | { abandoned: true };

/** One handler run being traced. */
export interface HandlerRun {
  readonly trace: McpHandlerTrace;
  /** `performance.now()` when the server started on the call. */
  readonly started: number;
  /** Whether a method awaits the call and settles the run (else the interceptor does). */
  readonly awaited: boolean;
  /** What the handler's pipeline threw, seen by the interceptor. */
  thrown?: { error: unknown };
}

/** A method awaits this call and settles its event: the interceptor only opens the run. */
interface AwaitedCall {
  readonly started: number;
}

// The run of each request whose handler is traced, or the mark of a method awaiting its call. Keyed by the request's
// context, which the method and the interceptor both hold.
const calls = new WeakMap<object, HandlerRun | AwaitedCall>();

/**
 * Opens the run of a handler for the request `scope`, unless one is open already (the interceptor registered twice):
 * then undefined.
 */
export function openHandlerRun(
  kind: McpHandlerKind,
  identity: McpCallIdentity,
  scope: McpCallScope,
): HandlerRun | undefined {
  const call = calls.get(scope);
  if (call && 'trace' in call) return undefined;
  const run: HandlerRun = {
    trace: traceOf(kind, identity, scope),
    started: call?.started ?? performance.now(),
    awaited: call !== undefined,
  };
  calls.set(scope, run);
  return run;
}

/**
 * Runs `fn` (which starts the handler's pipeline) as the run's synchronous part: `start` is published with the stores
 * bound to it entered around `fn`, then `end`.
 */
export function runHandler<T>(run: HandlerRun, fn: () => T): T {
  const channels = tracing[run.trace.kind];
  return channels.start.runStores(run.trace, () => {
    try {
      return fn();
    } finally {
      channels.end.publish(run.trace);
    }
  });
}

/**
 * The handler's pipeline settled. A run no method awaits ends here (its status read from what the pipeline gave);
 * an awaited one records what the pipeline threw and waits for the method (`trackHandlerCall`).
 */
export function handlerRunSettled(run: HandlerRun, scope: McpCallScope, settlement: McpCallSettlement): void {
  if (run.awaited) {
    if ('error' in settlement) run.thrown = { error: settlement.error };
    return;
  }
  if (calls.get(scope) === run) calls.delete(scope);
  settle(run, settlement, scope);
}

/**
 * Runs a call that a method makes and awaits (validation, the handler's pipeline, normalization), and settles its
 * event once the outcome is known: the run the interceptor opened, or — if the call never reached the interceptor —
 * a whole event published at once. Only called while someone listens (`handlerObserved`).
 */
export async function trackHandlerCall<T>(
  kind: McpHandlerKind,
  identity: McpCallIdentity,
  scope: McpCallScope,
  call: () => Promise<T>,
  outcome?: (result: T) => McpOutcome,
): Promise<T> {
  const started = performance.now();
  calls.set(scope, { started });
  let settlement: McpCallSettlement = { abandoned: true };
  try {
    const result = await call();
    settlement = { result };
    return result;
  } catch (error) {
    settlement = { error };
    throw error;
  } finally {
    const entry = calls.get(scope);
    calls.delete(scope);
    const run = entry && 'trace' in entry ? entry : openedAt(kind, identity, scope, started);
    const status = 'result' in settlement && outcome ? outcome(settlement.result as T) : undefined;
    settle(run, settlement, scope, status);
  }
}

/**
 * Runs a call whose handler events nobody observes while its request is traced: names the request's target once the
 * outcome is known, at the cost of one promise reaction (no run, no clock, no interceptor).
 */
export function trackRequestTarget<T>(
  kind: McpHandlerKind,
  identity: McpCallIdentity,
  scope: McpCallScope,
  call: () => Promise<T>,
  outcome?: (result: T) => McpOutcome,
): Promise<T> {
  const named = (status: McpOutcome) => setRequestTarget(scope, targetOf(kind, identity, status));
  return call().then(
    (result) => {
      named(outcome ? outcome(result) : outcomeOf(kind, { result }, false).status);
      return result;
    },
    (error: unknown) => {
      named(outcomeOf(kind, { error }, scope.cancelled).status);
      throw error;
    },
  );
}

/** Names the request's target as a name the server does not know (the request is traced; handlers are not). */
export function unknownRequestTarget(kind: McpHandlerKind, identity: McpCallIdentity, scope: McpCallScope): void {
  setRequestTarget(scope, targetOf(kind, identity, 'error', true));
}

/** What a request ran, for its trace: the run's kind and identity, how it ended, whether the name is unknown. */
function targetOf(
  kind: McpHandlerKind,
  identity: Pick<McpCallIdentity, 'name' | 'template'>,
  status: McpOutcome,
  unknown?: boolean,
): McpRequestTarget {
  return {
    kind,
    name: identity.name,
    ...(identity.template !== undefined ? { template: identity.template } : {}),
    ...(unknown ? { unknown: true } : {}),
    status,
  };
}

/**
 * Publishes the whole event of a call that could not reach a handler (no such tool, resource or prompt), failed
 * with `error`. Only called while someone listens.
 */
export function publishUnreachedCall(
  kind: McpHandlerKind,
  identity: McpCallIdentity,
  scope: McpCallScope,
  error: unknown,
): void {
  settle(openedAt(kind, identity, scope, performance.now(), true), { error }, scope);
}

/** A run that starts and ends now: `start` and `end` published back to back, before its outcome. */
function openedAt(
  kind: McpHandlerKind,
  identity: McpCallIdentity,
  scope: McpCallScope,
  started: number,
  unknown = false,
): HandlerRun {
  const run: HandlerRun = { trace: traceOf(kind, identity, scope), started, awaited: true };
  if (unknown) run.trace.unknown = true;
  tracing[kind].start.publish(run.trace);
  tracing[kind].end.publish(run.trace);
  return run;
}

function traceOf(kind: McpHandlerKind, identity: McpCallIdentity, scope: McpCallScope): McpHandlerTrace {
  const { requestId } = scope;
  return {
    server: identity.server,
    kind,
    name: identity.name,
    template: identity.template,
    era: scope.era,
    requestId: typeof requestId === 'string' ? sanitizeText(requestId, 128) : String(requestId),
    sessionId: scope.sessionId,
  };
}

// Fills the outcome in, names the request's target, then publishes `error` (if it threw), `asyncStart`, `asyncEnd`,
// and the plain event.
function settle(run: HandlerRun, settlement: McpCallSettlement, scope: McpCallScope, status?: McpOutcome): void {
  const { trace } = run;
  const outcome = status ? { status } : outcomeOf(trace.kind, settlement, scope.cancelled);
  trace.status = outcome.status;
  trace.errorCode = outcome.errorCode;
  trace.durationMs = since(run.started);
  setRequestTarget(scope, targetOf(trace.kind, trace, trace.status, trace.unknown));
  const failed = !('result' in settlement);
  if (!failed) trace.result = settlement.result;
  // The handler's own error, when the method then threw one derived from it.
  else trace.error = 'error' in settlement ? (run.thrown ?? settlement).error : undefined;
  publishTraceEnd(tracing[trace.kind], trace, failed);
  if (plain[trace.kind].hasSubscribers) {
    plain[trace.kind].publish({
      server: trace.server,
      name: trace.name,
      ...(trace.kind === 'resource' ? { template: trace.template } : {}),
      ...(trace.unknown ? { unknown: true } : {}),
      status: trace.status,
      errorCode: trace.errorCode,
      durationMs: trace.durationMs,
    } satisfies McpHandlerEvent);
  }
}

/**
 * The outcome of a call: `cancelled` if the request was cancelled while it threw; `input_required` for a modern-era
 * question; for tools, `tool_error` for a result with `isError` or what becomes one (an McpToolError, a 4xx
 * HttpException past the guards); else `error` with the JSON-RPC code the client gets, or `ok`.
 */
function outcomeOf(
  kind: McpHandlerKind,
  settlement: McpCallSettlement,
  cancelled: boolean,
): { status: McpOutcome; errorCode?: number } {
  if ('result' in settlement) {
    const { result } = settlement;
    const isError = kind === 'tool' && typeof result === 'object' && result !== null && 'isError' in result;
    return { status: isError && result.isError ? 'tool_error' : 'ok' };
  }
  if (cancelled || 'abandoned' in settlement) return { status: 'cancelled' };
  const { error } = settlement;
  if (error instanceof McpInputRequired) return { status: 'input_required' };
  if (kind === 'tool' && (error instanceof McpToolError || isClientHttpError(error))) return { status: 'tool_error' };
  const mapped = toMcpError(error, kind === 'resource' ? resourceNotFound : undefined);
  return { status: 'error', errorCode: mapped instanceof McpError ? mapped.code : undefined };
}

/** Milliseconds since `start` (a `performance.now()` reading), to the microsecond. */
export function since(start: number): number {
  return Math.round((performance.now() - start) * 1000) / 1000;
}

const resourceNotFound = (message: string) => new McpError(ErrorCode.ResourceNotFound, message);

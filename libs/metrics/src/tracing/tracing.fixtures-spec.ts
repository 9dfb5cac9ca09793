import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { tracingChannel } from 'node:diagnostics_channel';
import { MCP_CHANNELS, McpHandlerTrace, McpRequestTrace } from '@conduit-mcp/server';
import { MCP_CLIENT_CHANNELS, McpClientInputTrace, McpClientRequestTrace } from '@conduit-mcp/client';

/*
 * Publishers of synthetic traces, in the order and with the stores the server and the client use (see their channel
 * contracts), and an SDK that keeps the spans in memory.
 */

export const PARENT_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
export const PARENT_SPAN_ID = '00f067aa0ba902b7';
export const TRACEPARENT = `00-${PARENT_TRACE_ID}-${PARENT_SPAN_ID}-01`;

/** An SDK tracer provider exporting to memory, and the async-hooks context manager registered globally. */
export function inMemoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    exporter,
    provider,
    tracer: provider.getTracer('test'),
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    span: (name: string): ReadableSpan => {
      const found = exporter.getFinishedSpans().filter((span) => span.name === name);
      if (found.length !== 1) throw new Error(`${found.length} spans named ${name}: ${names(exporter)}`);
      return found[0];
    },
  };
}

function names(exporter: InMemorySpanExporter): string {
  return exporter
    .getFinishedSpans()
    .map((span) => span.name)
    .join(', ');
}

export function enableContextManager(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

export function disableContextManager(): void {
  context.disable();
  trace.disable();
}

const request = tracingChannel<unknown, McpRequestTrace>(MCP_CHANNELS.request);
const handlers = {
  tool: tracingChannel<unknown, McpHandlerTrace>(MCP_CHANNELS.tool),
  resource: tracingChannel<unknown, McpHandlerTrace>(MCP_CHANNELS.resource),
  prompt: tracingChannel<unknown, McpHandlerTrace>(MCP_CHANNELS.prompt),
};
const clientRequest = tracingChannel<unknown, McpClientRequestTrace>(MCP_CLIENT_CHANNELS.request);
const clientInput = tracingChannel<unknown, McpClientInputTrace>(MCP_CLIENT_CHANNELS.input);

/** Every sub-channel of every tracing channel traced, for checking that nothing is left attached. */
export const ALL_SUB_CHANNELS = [request, ...Object.values(handlers), clientRequest, clientInput].flatMap((channel) => [
  channel.start,
  channel.end,
  channel.asyncStart,
  channel.asyncEnd,
  channel.error,
]);

export function requestTrace(fields: Partial<McpRequestTrace> = {}): McpRequestTrace {
  return {
    server: 'notes',
    method: 'tools/call',
    routed: true,
    era: 'legacy',
    protocolVersion: '2025-11-25',
    transport: 'streamable-http',
    requestId: '7',
    sessionId: 'session-1',
    ...fields,
  };
}

export function handlerTrace(fields: Partial<McpHandlerTrace> = {}): McpHandlerTrace {
  return {
    server: 'notes',
    kind: 'tool',
    name: 'echo',
    era: 'legacy',
    requestId: '7',
    sessionId: 'session-1',
    ...fields,
  };
}

type RequestOutcome = Pick<McpRequestTrace, 'status' | 'errorCode' | 'target'>;
type HandlerOutcome = Pick<McpHandlerTrace, 'status' | 'errorCode'>;

/**
 * Serves `trace` as the dispatcher does: `start` with the stores entered around `route`, `end`, then, once the route
 * settled, the outcome filled in and `error` (on an error or a cancellation), `asyncStart`, `asyncEnd`.
 */
export async function serveRequest<T>(
  trace: McpRequestTrace,
  route: () => Promise<T>,
  outcome: RequestOutcome = { status: 'ok' },
): Promise<T> {
  const routed = request.start.runStores(trace, () => {
    try {
      return route();
    } finally {
      request.end.publish(trace);
    }
  });
  const result = await routed;
  settle(request, Object.assign(trace, outcome, { durationMs: 5 }), outcome.status !== 'ok');
  return result;
}

/** A request refused before its route: every message published back to back, no stores entered. */
export function refuseRequest(trace: McpRequestTrace, outcome: RequestOutcome, durationMs = 250): void {
  request.start.publish(trace);
  request.end.publish(trace);
  settle(request, Object.assign(trace, outcome, { durationMs }), true);
}

/** Runs a handler as McpTelemetryInterceptor does: `start` with the stores entered around it, `end`, then its end. */
export async function runHandler<T>(
  trace: McpHandlerTrace,
  handler: () => Promise<T>,
  outcome: HandlerOutcome = { status: 'ok' },
): Promise<T> {
  const channel = handlers[trace.kind];
  const running = channel.start.runStores(trace, () => {
    try {
      return handler();
    } finally {
      channel.end.publish(trace);
    }
  });
  const result = await running;
  settle(channel, Object.assign(trace, outcome, { durationMs: 3 }), outcome.status === 'error');
  return result;
}

/** A call that never reached its handler, published in one go at its end (no stores entered). */
export function unreachedCall(trace: McpHandlerTrace, outcome: HandlerOutcome, durationMs = 40): void {
  const channel = handlers[trace.kind];
  channel.start.publish(trace);
  channel.end.publish(trace);
  settle(channel, Object.assign(trace, outcome, { durationMs }), true);
}

export function clientRequestTrace(fields: Partial<McpClientRequestTrace> = {}): McpClientRequestTrace {
  return {
    client: 'assistant',
    server: 'notes',
    method: 'tools/call',
    era: 'legacy',
    target: 'echo',
    requestId: '3',
    transport: 'streamable-http',
    protocolVersion: '2025-11-25',
    sessionId: 'session-9',
    traceContext: {},
    ...fields,
  };
}

/** Sends a request as the client does: `start` and `end` in the caller's context, then `send`, then its end. */
export async function sendRequest<T>(
  trace: McpClientRequestTrace,
  send: () => Promise<T>,
  outcome: Pick<McpClientRequestTrace, 'status' | 'errorKind' | 'errorCode'> = { status: 'ok' },
): Promise<T> {
  clientRequest.start.publish(trace);
  clientRequest.end.publish(trace);
  const result = await send();
  settle(clientRequest, Object.assign(trace, outcome, { durationMs: 8 }), outcome.status === 'error');
  return result;
}

export function clientInputTrace(fields: Partial<McpClientInputTrace> = {}): McpClientInputTrace {
  return {
    client: 'assistant',
    server: 'notes',
    method: 'elicitation/create',
    era: 'legacy',
    traceContext: {},
    ...fields,
  };
}

/** Answers a server's question as the client does: `start` with the stores entered around `answer`, then its end. */
export async function answerInput<T>(
  trace: McpClientInputTrace,
  answer: () => Promise<T>,
  outcome: Pick<McpClientInputTrace, 'status' | 'errorCode'> = { status: 'ok' },
): Promise<T> {
  const answering = clientInput.start.runStores(trace, () => {
    try {
      return answer();
    } finally {
      clientInput.end.publish(trace);
    }
  });
  const result = await answering;
  settle(clientInput, Object.assign(trace, outcome, { durationMs: 2 }), outcome.status !== 'ok');
  return result;
}

function settle<T extends object>(channel: ReturnType<typeof tracingChannel<unknown, T>>, trace: T, failed: boolean) {
  if (failed) channel.error.publish(trace);
  channel.asyncStart.publish(trace);
  channel.asyncEnd.publish(trace);
}

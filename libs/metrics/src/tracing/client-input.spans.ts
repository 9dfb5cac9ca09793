import { Context, Span, SpanKind, Tracer, context, trace } from '@opentelemetry/api';
import type { McpClientInputTrace } from '@conduit-mcp/client';
import { MCP_ATTRIBUTES } from '../semconv/mcp.semconv';
import { recordOutcome, startedAgo } from './mcp-span.attributes';
import type { ChannelSpans } from './traced-channel';
import { withRemoteParent } from './w3c-trace-context';

/**
 * The SERVER span of each question of a server a client of this process answers (the client serves the server's
 * request), from the tracing channel `conduit-mcp:client:input`: a child of the trace context the server sent when
 * there is one, else of the active context; itself active around the answering handler.
 */
export class ClientInputSpans implements ChannelSpans<McpClientInputTrace> {
  private readonly spans = new WeakMap<McpClientInputTrace, Span>();

  constructor(private readonly tracer: Tracer) {}

  open(input: McpClientInputTrace): Context {
    const parent = parentOf(input);
    const span = this.startSpan(input, parent);
    this.spans.set(input, span);
    return trace.setSpan(parent, span);
  }

  close(input: McpClientInputTrace): void {
    const span = this.spans.get(input) ?? this.startSpan(input, parentOf(input), startedAgo(input.durationMs));
    this.spans.delete(input);
    recordOutcome(span, errorTypeOf(input), input.status === 'refused' || input.status === 'error');
    span.end();
  }

  private startSpan(input: McpClientInputTrace, parent: Context, startTime?: number): Span {
    const attributes = { [MCP_ATTRIBUTES.methodName]: input.method };
    return this.tracer.startSpan(input.method, { kind: SpanKind.SERVER, attributes, startTime }, parent);
  }
}

function parentOf(input: McpClientInputTrace): Context {
  return withRemoteParent(context.active(), input.traceContext.traceparent, input.traceContext.tracestate);
}

/** `cancelled`; the JSON-RPC code of a refusal or an error when it has one, else `refused` or `error`. */
function errorTypeOf(input: McpClientInputTrace): string | undefined {
  switch (input.status) {
    case 'cancelled':
      return 'cancelled';
    case 'refused':
    case 'error':
      return input.errorCode !== undefined ? String(input.errorCode) : input.status;
    default:
      return undefined;
  }
}

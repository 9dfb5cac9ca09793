import { Attributes, Span, SpanKind, Tracer, context, isSpanContextValid } from '@opentelemetry/api';
import type { McpClientRequestTrace } from '@conduit-mcp/client';
import { MCP_ATTRIBUTES, OTHER, networkProtocolOf, networkTransportOf } from '../semconv/mcp.semconv';
import { EXECUTE_TOOL, recordOutcome, startedAgo } from './mcp-span.attributes';
import type { ResolvedTracingOptions } from './mcp-tracing.options';
import type { ChannelSpans } from './traced-channel';
import { formatTraceparent } from './w3c-trace-context';

const TARGET_ATTRIBUTE: Record<string, string> = {
  'tools/call': MCP_ATTRIBUTES.toolName,
  'prompts/get': MCP_ATTRIBUTES.promptName,
};

/**
 * The CLIENT span of each request a client of this process sends, from the tracing channel
 * `conduit-mcp:client:request`: opened on `start`, in the caller's context (so a span the caller has open is its
 * parent), and handed to the server as the request's `traceparent` and `tracestate`; ended when the request settled.
 */
export class ClientRequestSpans implements ChannelSpans<McpClientRequestTrace> {
  private readonly spans = new WeakMap<McpClientRequestTrace, Span>();

  constructor(
    private readonly tracer: Tracer,
    private readonly options: ResolvedTracingOptions,
  ) {}

  start(request: McpClientRequestTrace): void {
    const span = this.startSpan(request);
    this.spans.set(request, span);
    const spanContext = span.spanContext();
    if (!isSpanContextValid(spanContext)) return;
    request.traceContext.traceparent = formatTraceparent(spanContext);
    const tracestate = spanContext.traceState?.serialize();
    if (tracestate) request.traceContext.tracestate = tracestate;
  }

  close(request: McpClientRequestTrace): void {
    const span = this.spans.get(request) ?? this.startSpan(request, startedAgo(request.durationMs));
    this.spans.delete(request);
    // Known once the era negotiation is done: a request may have been sent before.
    if (request.protocolVersion !== undefined) {
      span.setAttribute(MCP_ATTRIBUTES.protocolVersion, request.protocolVersion);
    }
    if (request.sessionId !== undefined && this.options.recordSessionId) {
      span.setAttribute(MCP_ATTRIBUTES.sessionId, request.sessionId);
    }
    if (request.status === 'error') {
      const { errorCode } = request;
      if (errorCode !== undefined) span.setAttribute(MCP_ATTRIBUTES.responseStatusCode, String(errorCode));
      // The JSON-RPC code when the server answered with one, else why it failed here (`timeout`, `transport`, …).
      recordOutcome(span, errorCode !== undefined ? String(errorCode) : (request.errorKind ?? OTHER), true);
    }
    span.end();
  }

  private startSpan(request: McpClientRequestTrace, startTime?: number): Span {
    const attributes: Attributes = {
      [MCP_ATTRIBUTES.methodName]: request.method,
      [MCP_ATTRIBUTES.requestId]: request.requestId,
      [MCP_ATTRIBUTES.networkTransport]: networkTransportOf(request.transport),
    };
    const protocolName = networkProtocolOf(request.transport);
    if (protocolName !== undefined) attributes[MCP_ATTRIBUTES.networkProtocolName] = protocolName;
    if (request.protocolVersion !== undefined) attributes[MCP_ATTRIBUTES.protocolVersion] = request.protocolVersion;
    if (request.sessionId !== undefined && this.options.recordSessionId) {
      attributes[MCP_ATTRIBUTES.sessionId] = request.sessionId;
    }
    const targetAttribute = TARGET_ATTRIBUTE[request.method];
    if (targetAttribute !== undefined && request.target !== undefined) attributes[targetAttribute] = request.target;
    if (request.method === 'tools/call') attributes[MCP_ATTRIBUTES.operationName] = EXECUTE_TOOL;
    const name = request.target !== undefined ? `${request.method} ${request.target}` : request.method;
    return this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes, startTime }, context.active());
  }
}

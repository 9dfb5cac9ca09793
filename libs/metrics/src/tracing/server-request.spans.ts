import { Attributes, Context, Span, SpanKind, Tracer, context, createContextKey, trace } from '@opentelemetry/api';
import type { McpRequestTrace } from '@conduit-mcp/server';
import { MCP_ATTRIBUTES, OTHER, errorTypeOf, networkProtocolOf, networkTransportOf } from '../semconv/mcp.semconv';
import { EXECUTE_TOOL, recordOutcome, startedAgo, targetAttributes } from './mcp-span.attributes';
import type { ResolvedTracingOptions } from './mcp-tracing.options';
import type { ChannelSpans } from './traced-channel';
import { withRemoteParent } from './w3c-trace-context';

/**
 * The session id of the request being served, in the context active around its route: a handler's run reads it there,
 * as the run's own session id may be a throw-away one (a stateless or modern-era request).
 */
export const REQUEST_SESSION_ID = createContextKey('@conduit-mcp/metrics request session id');

/**
 * The SERVER span of each request a server of this process serves, from the tracing channel `conduit-mcp:request`:
 * opened when the request is routed (its context is active around the route, so the handler's span is its child),
 * named and ended when the answer is known.
 */
export class ServerRequestSpans implements ChannelSpans<McpRequestTrace> {
  private readonly spans = new WeakMap<McpRequestTrace, Span>();

  constructor(
    private readonly tracer: Tracer,
    private readonly options: ResolvedTracingOptions,
  ) {}

  open(request: McpRequestTrace): Context {
    const parent = this.parentOf(request);
    const span = this.startSpan(request, parent);
    this.spans.set(request, span);
    const active = trace.setSpan(parent, span);
    return request.sessionId === undefined ? active : active.setValue(REQUEST_SESSION_ID, request.sessionId);
  }

  close(request: McpRequestTrace): void {
    // A request refused before its route had `start` published without its stores: its span starts and ends here.
    const span =
      this.spans.get(request) ?? this.startSpan(request, this.parentOf(request), startedAgo(request.durationMs));
    this.spans.delete(request);
    span.updateName(spanName(request));
    const { target } = request;
    if (target) span.setAttributes(targetAttributes(target, this.options));
    if (request.status === 'error' && request.errorCode !== undefined) {
      span.setAttribute(MCP_ATTRIBUTES.responseStatusCode, String(request.errorCode));
    }
    const toolError = target?.status === 'tool_error';
    const errorType = errorTypeOf({ status: request.status, errorCode: request.errorCode, toolError });
    // A cancelled request is the client's choice, not a failure of the server: its status stays unset.
    recordOutcome(span, errorType, request.status === 'error' || toolError);
    span.end();
  }

  // The client's trace context when it sent one (the request continues the client's trace), else the active one.
  private parentOf(request: McpRequestTrace): Context {
    return withRemoteParent(context.active(), request.traceparent, request.tracestate);
  }

  private startSpan(request: McpRequestTrace, parent: Context, startTime?: number): Span {
    return this.tracer.startSpan(
      request.routed ? request.method : OTHER,
      { kind: SpanKind.SERVER, attributes: this.attributesOf(request), startTime },
      parent,
    );
  }

  private attributesOf(request: McpRequestTrace): Attributes {
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
    if (request.method === 'tools/call') attributes[MCP_ATTRIBUTES.operationName] = EXECUTE_TOOL;
    return attributes;
  }
}

/**
 * `{mcp.method.name} {target}` for a tool or a prompt the server knows, else `{mcp.method.name}` (a resource's URI is
 * never part of a name); `_OTHER` for a method no route serves, whose name is the client's input.
 */
function spanName(request: McpRequestTrace): string {
  if (!request.routed) return OTHER;
  const { target } = request;
  return target && !target.unknown && target.kind !== 'resource' ? `${request.method} ${target.name}` : request.method;
}

import { Attributes, Context, Span, SpanKind, Tracer, context, trace } from '@opentelemetry/api';
import type { McpHandlerTrace } from '@conduit-mcp/server';
import { MCP_ATTRIBUTES, errorTypeOf } from '../semconv/mcp.semconv';
import { HANDLER_OUTCOME_ATTRIBUTE, recordOutcome, startedAgo, targetAttributes } from './mcp-span.attributes';
import type { ResolvedTracingOptions } from './mcp-tracing.options';
import { REQUEST_SESSION_ID } from './server-request.spans';
import type { ChannelSpans } from './traced-channel';

/**
 * The INTERNAL span of each tool, resource or prompt run, from the tracing channels `conduit-mcp:tool|resource|prompt`:
 * a child of the active context (the request's span), and itself active around the handler, so that what the
 * handler traces nests under it.
 */
export class ServerHandlerSpans implements ChannelSpans<McpHandlerTrace> {
  private readonly spans = new WeakMap<McpHandlerTrace, Span>();

  constructor(
    private readonly tracer: Tracer,
    private readonly options: ResolvedTracingOptions,
  ) {}

  open(run: McpHandlerTrace): Context {
    const parent = context.active();
    const span = this.startSpan(run, parent);
    this.spans.set(run, span);
    return trace.setSpan(parent, span);
  }

  close(run: McpHandlerTrace): void {
    // A call that never reached its handler (unknown name, invalid arguments, a guard's refusal) had `start`
    // published without its stores: its span starts and ends here.
    const span = this.spans.get(run) ?? this.startSpan(run, context.active(), startedAgo(run.durationMs));
    this.spans.delete(run);
    if (run.status !== undefined) span.setAttribute(HANDLER_OUTCOME_ATTRIBUTE, run.status);
    if (run.status === 'error' && run.errorCode !== undefined) {
      span.setAttribute(MCP_ATTRIBUTES.responseStatusCode, String(run.errorCode));
    }
    const toolError = run.status === 'tool_error';
    const errorType = errorTypeOf({ status: run.status, errorCode: run.errorCode, toolError });
    recordOutcome(span, errorType, run.status === 'error' || toolError);
    span.end();
  }

  private startSpan(run: McpHandlerTrace, parent: Context, startTime?: number): Span {
    const attributes: Attributes = {
      ...targetAttributes(run, this.options),
      [MCP_ATTRIBUTES.requestId]: run.requestId,
    };
    const sessionId = parent.getValue(REQUEST_SESSION_ID);
    if (typeof sessionId === 'string' && this.options.recordSessionId) attributes[MCP_ATTRIBUTES.sessionId] = sessionId;
    return this.tracer.startSpan(spanName(run), { kind: SpanKind.INTERNAL, attributes, startTime }, parent);
  }
}

/**
 * `execute_tool {name}`, `get_prompt {name}`, `read_resource {template}` (a URI read is never part of a name, nor a
 * name the server does not know).
 */
function spanName(run: McpHandlerTrace): string {
  switch (run.kind) {
    case 'tool':
      return run.unknown ? 'execute_tool' : `execute_tool ${run.name}`;
    case 'prompt':
      return run.unknown ? 'get_prompt' : `get_prompt ${run.name}`;
    case 'resource':
      return run.template !== undefined ? `read_resource ${run.template}` : 'read_resource';
  }
}

import { Attributes, Span, SpanStatusCode } from '@opentelemetry/api';
import type { McpHandlerKind } from '@conduit-mcp/server';
import { MCP_ATTRIBUTES } from '../semconv/mcp.semconv';
import type { ResolvedTracingOptions } from './mcp-tracing.options';

/** `gen_ai.operation.name` of a tool's run (and of a `tools/call` request). */
export const EXECUTE_TOOL = 'execute_tool';

/**
 * Attribute of a handler span: how the handler's run ended (`ok`, `error`, `tool_error`, `cancelled`,
 * `input_required`). Not a semantic convention: it tells apart what `error.type` and the status cannot, a modern-era
 * round that ended asking the client for input (a success) from a plain result.
 */
export const HANDLER_OUTCOME_ATTRIBUTE = 'conduit.mcp.handler.outcome';

/**
 * The attributes naming what a tool, prompt or resource run is about: `gen_ai.tool.name` (with `gen_ai.operation.name`
 * `execute_tool`), `gen_ai.prompt.name`, or the resource's `mcp.resource.uri` when it is to be recorded. A name the
 * server does not know is a client's input and is left out.
 */
export function targetAttributes(
  target: { kind: McpHandlerKind; name: string; unknown?: true },
  options: ResolvedTracingOptions,
): Attributes {
  if (target.unknown) return {};
  switch (target.kind) {
    case 'tool':
      return { [MCP_ATTRIBUTES.toolName]: target.name, [MCP_ATTRIBUTES.operationName]: EXECUTE_TOOL };
    case 'prompt':
      return { [MCP_ATTRIBUTES.promptName]: target.name };
    case 'resource':
      return options.recordResourceUri ? { [MCP_ATTRIBUTES.resourceUri]: target.name } : {};
  }
}

/**
 * Records how an operation ended: `error.type` when there is one, and status ERROR when it failed, with the error type
 * as its only message (nothing from the error itself, which may carry what the client sent).
 */
export function recordOutcome(span: Span, errorType: string | undefined, failed: boolean): void {
  if (errorType !== undefined) span.setAttribute(MCP_ATTRIBUTES.errorType, errorType);
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
}

/** `Date.now()`-based start time of an operation that took `durationMs` and ends now. */
export function startedAgo(durationMs: number | undefined): number {
  return Date.now() - (durationMs ?? 0);
}

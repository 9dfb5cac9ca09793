import { CallToolResult, sanitizeText } from '@conduit-mcp/core';
import { RegisteredTool } from '../registry/registry.types';

/** Longest text of a tool error made by the server (invalid arguments, an HTTP exception's message). */
export const TOOL_ERROR_CHARS = 2048;

/**
 * A tool's arguments checked against its input (DTO or JSON Schema): the value its handler gets, or the tool error
 * to answer instead (the model reads it and can correct the call).
 */
export async function checkArguments(
  tool: RegisteredTool,
  args: Record<string, unknown>,
): Promise<{ ok: true; value: unknown } | { ok: false; error: CallToolResult }> {
  const checked = tool.input.check(args);
  const input = checked instanceof Promise ? await checked : checked;
  if (input.ok) return { ok: true, value: input.value };
  const text = `Invalid arguments for tool ${tool.definition.name}: ${input.problems.join('; ')}`;
  return {
    ok: false,
    error: { content: [{ type: 'text', text: sanitizeText(text, TOOL_ERROR_CHARS) }], isError: true },
  };
}

import { SPEC_TOOL_NAME_RULE, Tool, isSpecToolName, sanitizeText } from '@conduit-mcp/core';

/** Longest server text in one line the CLI writes (a name, a version, a message), in code points. */
const LINE_CHARS = 1_024;
/** Deepest nesting of the answer printed; deeper values are cut (JSON.stringify would overflow the stack on them). */
const MAX_DEPTH = 64;
const CUT = '[…]';
// Strings of the answer are bounded by the transport's message size already; only their characters are cleaned.
const WHOLE = Number.MAX_SAFE_INTEGER;

/**
 * Server text for one line of the CLI's own output on stderr: line breaks become spaces, then the sanitizer drops
 * control, bidi and zero-width characters (so no ANSI escape sequence survives) and clamps it.
 */
export function terminalLine(text: unknown, maxChars = LINE_CHARS): string {
  return sanitizeText(typeof text === 'string' ? text.replace(/\s*[\r\n]+\s*/g, ' ') : String(text ?? ''), maxChars);
}

/**
 * The answer as the JSON printed on stdout: every string in it, keys included, goes through the sanitizer line by
 * line (the line breaks are kept, and JSON escapes them), so nothing the server wrote can drive the terminal; nesting
 * is cut below 64 levels.
 */
export function terminalJson(answer: unknown): string {
  return JSON.stringify(clean(answer, 0), null, 2) ?? 'null';
}

/**
 * The tool list as printed: a tool whose name is outside the specification's rule gets a `warning` (its name as
 * printed is sanitized, so it may not be the one to call), and `warn` is told of it.
 */
export function toolListing(tools: Tool[], warn: (line: string) => void): Array<Tool & { warning?: string }> {
  return tools.map((tool) => {
    if (isSpecToolName(tool.name)) return tool;
    const warning = `name outside the specification's rule (${SPEC_TOOL_NAME_RULE}); shown sanitized`;
    warn(`tool "${terminalLine(tool.name, 256)}": ${warning}`);
    return { ...tool, warning };
  });
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string')
    return value
      .split('\n')
      .map((line) => sanitizeText(line, WHOLE))
      .join('\n');
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return CUT;
  if (Array.isArray(value)) return value.map((item) => clean(item, depth + 1));
  // fromEntries defines own properties, so a `__proto__` key stays a key.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [sanitizeText(key, WHOLE), clean(item, depth + 1)]),
  );
}

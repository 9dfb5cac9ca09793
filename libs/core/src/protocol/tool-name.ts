/**
 * The tool names the specification recommends (2025-11-25, "Tool Names"): 1 to 128 characters, each an ASCII letter,
 * a digit, `_`, `-` or `.`. A SHOULD, not a MUST: servers may use others, so a client flags them rather than refuses.
 */
const SPEC_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The rule of {@link isSpecToolName}, in words, for messages. */
export const SPEC_TOOL_NAME_RULE = '1-128 characters of A-Z a-z 0-9 _ . -';

/**
 * Whether `name` follows the specification's tool-name rule ({@link SPEC_TOOL_NAME_RULE}); false for a non-string.
 *
 * @example
 * if (!isSpecToolName(tool.name)) warn(`tool name outside the specification's rule (${SPEC_TOOL_NAME_RULE})`);
 */
export function isSpecToolName(name: unknown): boolean {
  return typeof name === 'string' && SPEC_TOOL_NAME.test(name);
}

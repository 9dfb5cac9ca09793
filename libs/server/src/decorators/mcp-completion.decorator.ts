import { SetMetadata } from '@nestjs/common';
import { MCP_COMPLETION_METADATA } from '../mcp.constants';

/**
 * What `@McpCompletion` completes: an argument of a prompt, or a variable of a resource template
 * (the template exactly as declared in `@McpResource`).
 */
export type McpCompletionOptions =
  | { prompt: string; argument: string; server?: string | string[] }
  | { resource: string; argument: string; server?: string | string[] };

/**
 * Answers `completion/complete` for one prompt argument or template variable. The method receives
 * `{ value, arguments }` (the partial value and the other arguments already given) and returns
 * `string[]` or `{ values, total?, hasMore? }`.
 */
export const McpCompletion = (options: McpCompletionOptions): MethodDecorator =>
  SetMetadata(MCP_COMPLETION_METADATA, options);

import { SetMetadata } from '@nestjs/common';
import { Icon, Meta, PromptArgument } from '@conduit-mcp/core';
import { MCP_PROMPT_METADATA } from '../mcp.constants';
import { McpCacheHint } from '../interfaces/mcp-module-options.interface';

/** Options of `@McpPrompt`. */
export interface McpPromptOptions {
  /** Default: the method name. */
  name?: string;
  title?: string;
  description?: string;
  /** Declared arguments; a missing `required` one is refused with -32602 before the handler runs. */
  arguments?: PromptArgument[];
  icons?: Icon[];
  /** Which server(s) the prompt belongs to when the app has several. Default: every server. */
  server?: string | string[];
  /** Modern-era caching hints for this prompt (the list it appears in takes the shortest `ttlMs`, and `private` wins). */
  cache?: McpCacheHint;
  _meta?: Meta;
}

/**
 * Exposes a provider method as an MCP prompt. Its arguments reach the method through `@McpArgs()`; it returns a
 * `GetPromptResult`, an array of messages or a string (one user message).
 *
 * @example
 * ```ts
 * @McpPrompt({ name: 'trip_brief', arguments: [{ name: 'city', required: true }] })
 * tripBrief(@McpArgs() args: { city: string }) {
 *   return `Write a two-line travel brief for ${args.city}.`;
 * }
 * ```
 */
export const McpPrompt = (options: McpPromptOptions = {}): MethodDecorator => SetMetadata(MCP_PROMPT_METADATA, options);

import { SetMetadata } from '@nestjs/common';
import { Annotations, Icon, Meta } from '@conduit-mcp/core';
import { MCP_RESOURCE_METADATA } from '../mcp.constants';
import { McpCacheHint } from '../interfaces/mcp-module-options.interface';

/** Options of `@McpResource`. */
export interface McpResourceOptions {
  /** A static URI, or an RFC 6570 URI template (`weather://stations/{id}`) whose variables reach the handler. */
  uri: string;
  /** Default: the method name. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  /** Which server(s) the resource belongs to when the app has several. Default: every server. */
  server?: string | string[];
  /** Modern-era caching hints for this resource (the list it appears in takes the shortest `ttlMs`, and `private` wins). */
  cache?: McpCacheHint;
  _meta?: Meta;
}

/**
 * Exposes a provider method as an MCP resource (static URI) or resource template (URI template). A template's
 * variables reach the method through `@McpArgs()`; it returns a `ReadResourceResult`, contents, a string (text) or a
 * `Buffer` (blob).
 *
 * @example
 * ```ts
 * @McpResource({ uri: 'notes://notes/{id}', name: 'note', mimeType: 'text/plain' })
 * note(@McpArgs() variables: { id: string }) {
 *   const text = this.notes.get(variables.id);
 *   if (text === undefined) throw new NotFoundException(`no note ${variables.id}`);
 *   return text;
 * }
 * ```
 */
export const McpResource = (options: McpResourceOptions): MethodDecorator =>
  SetMetadata(MCP_RESOURCE_METADATA, options);

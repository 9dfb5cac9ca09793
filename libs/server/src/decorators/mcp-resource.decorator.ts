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

/** Exposes a provider method as an MCP resource (static URI) or resource template (URI template). */
export const McpResource = (options: McpResourceOptions): MethodDecorator =>
  SetMetadata(MCP_RESOURCE_METADATA, options);

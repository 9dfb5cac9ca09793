import {
  ClientCapabilities,
  Era,
  HeaderParam,
  Implementation,
  JsonRpcId,
  LoggingLevel,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  encodeHeaderValue,
  headerDeclarationProblems,
  headerParamsOf,
  isJsonObject,
  valueAtPath,
} from '@conduit-mcp/core';
import { DEFAULT_LIST_LIMITS } from './list-limits';

/** What the envelope reads of its connection, when a request is sent. */
export interface EnvelopeSource {
  era(): Era | undefined;
  revision(): string | undefined;
  capabilities(): ClientCapabilities;
  clientInfo(): Implementation;
  logLevel(): LoggingLevel | undefined;
}

/** The params whose value the modern era mirrors in `Mcp-Name`, by method. */
const NAMED: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

/**
 * What a request carries besides its own params: its `_meta` (a progress token; in the modern era the revision, the
 * client's capabilities and info and the log level, since nothing is remembered between requests) and, in the modern
 * era, the HTTP headers mirroring the body (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` from the tools' `x-mcp-header`
 * declarations, learnt when the tools are listed; see `ToolDeclarations` for a call to a tool not listed yet). A
 * request that declares capabilities of its own in its `_meta` (the tasks extension) has them added to the client's,
 * for that request only.
 */
export class ModernEnvelope {
  // Insertion-ordered: past `maxTools`, or `maxToolBytes` of names and headers, the tool learnt first is forgotten
  // (a later call lists the tools again).
  private readonly toolHeaders = new Map<string, HeaderParam[]>();
  private toolHeaderBytes = 0;

  constructor(
    private readonly source: EnvelopeSource,
    private readonly maxTools = DEFAULT_LIST_LIMITS.maxItems,
    private readonly maxToolBytes = DEFAULT_LIST_LIMITS.maxBytes,
  ) {}

  /**
   * Learns a listed tool's `x-mcp-header` parameters; false for a tool whose declarations are invalid, which cannot
   * be called correctly over HTTP (the client leaves it out, and calls it with no `Mcp-Param-*` header).
   */
  learnTool(tool: { name?: unknown; inputSchema?: unknown }): boolean {
    const schema = (tool.inputSchema ?? {}) as Record<string, unknown>;
    const valid = headerDeclarationProblems(schema).length === 0;
    this.remember(String(tool.name), valid ? headerParamsOf(schema) : []);
    return valid;
  }

  /** Whether the tool's declaration was seen (in a listing), or the listing showed it has none. */
  knowsTool(name: string): boolean {
    return this.toolHeaders.has(name);
  }

  /** Forgets every tool's declarations (the server's tools changed): the next call to a tool lists them again. */
  forgetTools(): void {
    this.toolHeaders.clear();
    this.toolHeaderBytes = 0;
  }

  /** A tool the server did not list: it is called with no `Mcp-Param-*` header, and not looked up again. */
  assumeNoHeaders(name: string): void {
    if (!this.toolHeaders.has(name)) this.remember(name, []);
  }

  private remember(name: string, headers: HeaderParam[]): void {
    this.forget(name);
    const bytes = declarationBytes(name, headers);
    if (bytes > this.maxToolBytes) return;
    this.toolHeaders.set(name, headers);
    this.toolHeaderBytes += bytes;
    while (this.toolHeaders.size > this.maxTools || this.toolHeaderBytes > this.maxToolBytes)
      this.forget(this.toolHeaders.keys().next().value as string);
  }

  private forget(name: string): void {
    const headers = this.toolHeaders.get(name);
    if (headers === undefined) return;
    this.toolHeaders.delete(name);
    this.toolHeaderBytes -= declarationBytes(name, headers);
  }

  /** `params` with its `_meta` completed (`progressToken`: the request's id when the caller follows progress). */
  params(params: Record<string, unknown>, progressToken: JsonRpcId | undefined): Record<string, unknown> {
    const meta: Record<string, unknown> = { ...(params._meta as Record<string, unknown> | undefined) };
    if (progressToken !== undefined) meta.progressToken = progressToken;
    const { source } = this;
    if (source.era() === 'modern') {
      meta[META_PROTOCOL_VERSION] = source.revision();
      meta[META_CLIENT_CAPABILITIES] = withOwn(source.capabilities(), meta[META_CLIENT_CAPABILITIES]);
      meta[META_CLIENT_INFO] = source.clientInfo();
      const logLevel = source.logLevel();
      if (logLevel) meta[META_LOG_LEVEL] = logLevel;
    }
    // Object.assign, not `{ ...x, key }`: on Node 20 a spread followed by keys takes V8's slow path (bench/README.md).
    return Object.keys(meta).length ? Object.assign({}, params, { _meta: meta }) : params;
  }

  /** Modern-era request headers mirroring the body (Streamable HTTP reads them; other transports ignore them). */
  headers(method: string, params: Record<string, unknown>): Record<string, string> | undefined {
    if (this.source.era() !== 'modern') return undefined;
    const headers: Record<string, string> = { 'Mcp-Method': method };
    const named = NAMED.get(method);
    const name = named === undefined ? undefined : params[named];
    if (typeof name === 'string') headers['Mcp-Name'] = encodeHeaderValue(name);
    if (method === 'tools/call' && typeof name === 'string') {
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      for (const { header, path } of this.toolHeaders.get(name) ?? []) {
        const value = valueAtPath(args, path);
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
          headers[`Mcp-Param-${header}`] = encodeHeaderValue(value);
      }
    }
    return headers;
  }
}

// Extensions merged, not replaced: a request adding the tasks extension still declares the client's others.
function withOwn(client: ClientCapabilities, own: unknown): ClientCapabilities {
  if (!isJsonObject(own)) return client;
  const merged: ClientCapabilities = Object.assign({}, client, own);
  if (isJsonObject(own.extensions)) merged.extensions = Object.assign({}, client.extensions, own.extensions);
  return merged;
}

// What a remembered declaration holds, as string length: the tool's name, and each header's name and path.
function declarationBytes(name: string, headers: HeaderParam[]): number {
  let bytes = name.length;
  for (const { header, path } of headers) {
    bytes += header.length;
    for (const key of path) bytes += key.length;
  }
  return bytes;
}

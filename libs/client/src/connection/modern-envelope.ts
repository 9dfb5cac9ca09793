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
  valueAtPath,
} from '@conduit-mcp/core';

/** What the envelope reads of its connection, when a request is sent. */
export interface EnvelopeSource {
  era(): Era | undefined;
  revision(): string | undefined;
  capabilities(): ClientCapabilities;
  clientInfo(): Implementation;
  logLevel(): LoggingLevel | undefined;
}

/**
 * What a request carries besides its own params: its `_meta` (a progress token; in the modern era the revision, the
 * client's capabilities and info and the log level, since nothing is remembered between requests) and, in the modern
 * era, the HTTP headers mirroring the body (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` from the tools' `x-mcp-header`
 * declarations, learnt when the tools are listed).
 */
export class ModernEnvelope {
  private readonly toolHeaders = new Map<string, HeaderParam[]>();

  constructor(private readonly source: EnvelopeSource) {}

  /**
   * Learns a listed tool's `x-mcp-header` parameters; false for a tool whose declarations are invalid, which cannot
   * be called correctly over HTTP (the client leaves it out).
   */
  learnTool(tool: { name?: unknown; inputSchema?: unknown }): boolean {
    const schema = (tool.inputSchema ?? {}) as Record<string, unknown>;
    if (headerDeclarationProblems(schema).length > 0) return false;
    this.toolHeaders.set(String(tool.name), headerParamsOf(schema));
    return true;
  }

  /** `params` with its `_meta` completed (`progressToken`: the request's id when the caller follows progress). */
  params(params: Record<string, unknown>, progressToken: JsonRpcId | undefined): Record<string, unknown> {
    const meta: Record<string, unknown> = { ...(params._meta as Record<string, unknown> | undefined) };
    if (progressToken !== undefined) meta.progressToken = progressToken;
    const { source } = this;
    if (source.era() === 'modern') {
      meta[META_PROTOCOL_VERSION] = source.revision();
      meta[META_CLIENT_CAPABILITIES] = source.capabilities();
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
    const name =
      method === 'resources/read'
        ? params.uri
        : method === 'tools/call' || method === 'prompts/get'
          ? params.name
          : undefined;
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

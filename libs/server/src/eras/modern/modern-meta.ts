import {
  ClientCapabilities,
  ErrorCode,
  Implementation,
  LOGGING_LEVELS,
  LoggingLevel,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  McpError,
  invalidParams,
  sanitizeText,
} from '@conduit-mcp/core';

/** What a modern-era request says about itself in `_meta`. */
export interface ModernMeta {
  revision: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  /** The level asked for; absent means no log messages at all for this request. */
  logLevel: LoggingLevel | undefined;
}

/**
 * Reads and checks the per-request `_meta` of a modern-era request: malformed or missing required keys → -32602.
 * Whether the revision is served is checked apart ({@link checkRevision}), after the HTTP headers.
 */
export function readModernMeta(params: Record<string, unknown>): ModernMeta {
  const meta = params._meta;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta))
    throw invalidParams('Missing _meta: modern requests carry their protocol version and client capabilities');
  const fields = meta as Record<string, unknown>;
  const revision = fields[META_PROTOCOL_VERSION];
  if (typeof revision !== 'string') throw invalidParams(`Missing or invalid _meta["${META_PROTOCOL_VERSION}"]`);
  const capabilities = fields[META_CLIENT_CAPABILITIES];
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
    throw invalidParams(`Missing or invalid _meta["${META_CLIENT_CAPABILITIES}"]`);
  }
  const clientInfo = fields[META_CLIENT_INFO];
  if (clientInfo !== undefined && !isImplementation(clientInfo))
    throw invalidParams(`Invalid _meta["${META_CLIENT_INFO}"]: name and version are required`);
  const logLevel = fields[META_LOG_LEVEL];
  if (logLevel !== undefined && !(LOGGING_LEVELS as readonly unknown[]).includes(logLevel))
    throw invalidParams(`Invalid _meta["${META_LOG_LEVEL}"]`);
  return {
    revision,
    clientCapabilities: capabilities as ClientCapabilities,
    clientInfo: clientInfo as Implementation | undefined,
    logLevel: logLevel as LoggingLevel | undefined,
  };
}

function isImplementation(value: unknown): boolean {
  const info = value as Record<string, unknown>;
  return (
    typeof value === 'object' && value !== null && typeof info.name === 'string' && typeof info.version === 'string'
  );
}

/** A revision not served here → -32022, naming the revisions served (`supported`, newest first). */
export function checkRevision(revision: string, modern: readonly string[], supported: readonly string[]): void {
  if (!modern.includes(revision)) {
    throw new McpError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
      supported: [...supported],
      requested: sanitizeText(revision, 64),
    });
  }
}

/** Protocol eras: legacy (initialize + sessions) and modern (stateless, per-request _meta). */
export type Era = 'legacy' | 'modern';

/** Legacy revisions, newest first. */
export const LEGACY_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const MODERN_REVISIONS = ['2026-07-28'] as const;

export type LegacyRevision = (typeof LEGACY_REVISIONS)[number];
export type Revision = LegacyRevision | (typeof MODERN_REVISIONS)[number];

export const LATEST_LEGACY_REVISION: LegacyRevision = LEGACY_REVISIONS[0];
/** The revision assumed for HTTP requests without MCP-Protocol-Version (per the 2025-06-18 transport rules). */
export const DEFAULT_HTTP_REVISION: LegacyRevision = '2025-03-26';

export function isLegacyRevision(value: unknown): value is LegacyRevision {
  return typeof value === 'string' && (LEGACY_REVISIONS as readonly string[]).includes(value);
}

export function isKnownRevision(value: unknown): value is Revision {
  return (
    isLegacyRevision(value) || (typeof value === 'string' && (MODERN_REVISIONS as readonly string[]).includes(value))
  );
}

export function eraOf(revision: Revision): Era {
  return isLegacyRevision(revision) ? 'legacy' : 'modern';
}

/**
 * Legacy version negotiation: the client's version when the server supports it, else the server's latest.
 * `supported` lets a server narrow the list; it is ordered newest first.
 */
export function negotiateLegacyRevision(
  requested: unknown,
  supported: readonly LegacyRevision[] = LEGACY_REVISIONS,
): LegacyRevision {
  return typeof requested === 'string' && (supported as readonly string[]).includes(requested)
    ? (requested as LegacyRevision)
    : supported[0];
}

export type ModernRevision = (typeof MODERN_REVISIONS)[number];
export const LATEST_MODERN_REVISION: ModernRevision = MODERN_REVISIONS[0];

export function isModernRevision(value: unknown): value is ModernRevision {
  return typeof value === 'string' && (MODERN_REVISIONS as readonly string[]).includes(value);
}

/** `_meta` keys of the protocol (modern era: every request names its revision and the client's capabilities). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

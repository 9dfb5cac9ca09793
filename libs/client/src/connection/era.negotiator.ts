import {
  Era,
  ErrorCode,
  Implementation,
  LATEST_LEGACY_REVISION,
  LATEST_MODERN_REVISION,
  MODERN_REVISIONS,
  ServerCapabilities,
  isLegacyRevision,
  isModernRevision,
  sanitizeText,
} from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { CallTable } from './call-table';
import { ConnectionHost } from './connection.host';

const PROBE_TIMEOUT_MS = 10_000;
/** How long connecting waits for the legacy standalone GET stream to open. */
const STANDALONE_STREAM_WAIT_MS = 3_000;

/**
 * Settles which era and revision a connection speaks, as its configuration asks (`auto`, an era or a revision), and
 * keeps what the server said of itself on the way (capabilities, info, instructions).
 */
export class EraNegotiator {
  era: Era | undefined;
  protocolVersion: string | undefined;
  serverCapabilities: ServerCapabilities = {};
  serverInfo: Implementation | undefined;
  instructions: string | undefined;

  constructor(
    private readonly serverId: string,
    private readonly configured: string | undefined,
    private readonly host: ConnectionHost,
    private readonly calls: CallTable,
  ) {}

  async negotiate(): Promise<void> {
    const era = this.configured ?? 'auto';
    if (era === 'modern' || isModernRevision(era))
      return this.useModern(era === 'modern' ? LATEST_MODERN_REVISION : era);
    if (era === 'legacy' || isLegacyRevision(era))
      return this.initialize(era === 'legacy' ? LATEST_LEGACY_REVISION : era);
    if (era !== 'auto')
      throw new McpClientError('protocol', `Unknown era or revision "${era}" for server ${this.serverId}`);
    // auto: probe with server/discover; a modern answer (or a modern error naming a modern revision) keeps us modern.
    this.era = 'modern';
    this.protocolVersion = LATEST_MODERN_REVISION;
    this.host.transport()?.useRevision?.(LATEST_MODERN_REVISION);
    try {
      const result = await this.calls.send('server/discover', {}, { timeout: PROBE_TIMEOUT_MS });
      const modern = modernOf(result.supportedVersions);
      if (modern) return this.adoptDiscovery(modern, result);
    } catch (error) {
      // An authorization that failed fails the connection: initialize would only ask the person again.
      if (error instanceof McpClientError && error.kind === 'authorization') throw error;
      const modern = modernOf(supportedOf(error));
      if (modern) return this.useModern(modern);
    }
    this.era = undefined;
    this.host.transport()?.useRevision?.(undefined);
    return this.initialize(LATEST_LEGACY_REVISION);
  }

  /** Opens a new legacy session at the revision negotiated before (the server forgot the old one). */
  reinitialize(): Promise<void> {
    return this.initialize(this.protocolVersion ?? LATEST_LEGACY_REVISION);
  }

  /** Refuses a method of the other era; `instead`: how the negotiated era does the same, for the message. */
  requireEra(era: Era, method: string, instead: string): void {
    if (this.era === era) return;
    throw new McpClientError(
      'protocol',
      `${method} is part of the ${era} era only, and this connection negotiated the ${this.era} era ` +
        `(${this.protocolVersion}); use ${instead}, or pin the server's era with era: '${era}'`,
    );
  }

  /** Speaks the modern era at `revision`; a -32022 naming another modern revision of ours is retried with it once. */
  private async useModern(revision: string, retried = false): Promise<void> {
    this.era = 'modern';
    this.protocolVersion = revision;
    this.host.transport()?.useRevision?.(revision);
    try {
      this.adoptDiscovery(revision, await this.calls.send('server/discover', {}, { timeout: PROBE_TIMEOUT_MS }));
    } catch (error) {
      const other = modernOf(supportedOf(error));
      if (retried || !other) throw error;
      await this.useModern(other, true);
    }
  }

  private adoptDiscovery(revision: string, result: Record<string, unknown>): void {
    this.era = 'modern';
    this.protocolVersion = revision;
    this.serverCapabilities = (result.capabilities as ServerCapabilities) ?? {};
    this.instructions = typeof result.instructions === 'string' ? result.instructions : undefined;
    const meta = result._meta as Record<string, unknown> | undefined;
    this.serverInfo = meta?.['io.modelcontextprotocol/serverInfo'] as Implementation | undefined;
  }

  private async initialize(revision: string): Promise<void> {
    this.era = 'legacy';
    const result = await this.calls.send('initialize', {
      protocolVersion: revision,
      capabilities: this.host.capabilities(),
      clientInfo: this.host.clientInfo(),
    });
    const negotiated = result.protocolVersion;
    if (!isLegacyRevision(negotiated)) {
      throw new McpClientError(
        'protocol',
        `Server ${this.serverId} answered initialize with an unsupported revision ${sanitizeText(String(negotiated), 32)}`,
      );
    }
    this.protocolVersion = negotiated;
    this.host.transport()?.useRevision?.(negotiated);
    this.serverCapabilities = (result.capabilities as ServerCapabilities) ?? {};
    this.serverInfo = result.serverInfo as Implementation | undefined;
    this.instructions = typeof result.instructions === 'string' ? result.instructions : undefined;
    await this.host.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // The connection is ready once the standalone stream is open (or refused): a server may send a request there as
    // soon as a call starts, and one with nowhere to send it drops it. A server slow to answer the GET is not waited
    // for beyond STANDALONE_STREAM_WAIT_MS; the stream still opens when it answers.
    const standalone = this.host.transport()?.openStandaloneStream?.();
    if (standalone)
      await atMost(
        standalone.catch(() => undefined),
        STANDALONE_STREAM_WAIT_MS,
      );
  }
}

/** Resolves when `promise` settles, or after `ms`, whichever comes first. */
function atMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([promise.then(() => undefined), elapsed]).finally(() => clearTimeout(timer));
}

/** The revisions a -32022 (unsupported protocol version) error names in its data, if it is one. */
function supportedOf(error: unknown): unknown {
  return error instanceof McpClientError && error.code === ErrorCode.UnsupportedProtocolVersion
    ? (error.data as { supported?: unknown })?.supported
    : undefined;
}

/** The newest modern revision of ours that a list of versions names. */
function modernOf(versions: unknown): string | undefined {
  if (!Array.isArray(versions)) return undefined;
  return MODERN_REVISIONS.find((revision) => versions.includes(revision));
}

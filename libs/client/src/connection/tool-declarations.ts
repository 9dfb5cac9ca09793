import { Era } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { ClientTransport } from '../transports/client-transport.interface';
import { DEFAULT_TIMEOUT_MS } from './call-table';
import { McpCallOptions } from './mcp-call-options';
import { McpListParams } from './mcp-client.types';
import { ModernEnvelope } from './modern-envelope';

/** What the declarations read of the connection. */
export interface ToolDeclarationsConnection {
  readonly envelope: ModernEnvelope;
  readonly transport: ClientTransport | undefined;
}

/** What the declarations need of their client. */
export interface ToolDeclarationsClient {
  readonly era: Era | undefined;
  connect(): Promise<void>;
  /** Lists every tool, teaching the envelope their declarations. */
  listTools(params: McpListParams, options: McpCallOptions): Promise<unknown>;
}

/**
 * A modern-era `tools/call` over HTTP carries an `Mcp-Param-*` header for each argument the tool declares with
 * `x-mcp-header`, and the server refuses the call without them (-32020). The declarations come from `tools/list`; for
 * a call to a tool not listed yet, the tools are listed first (one listing shared by the calls waiting on it, within
 * the call's deadline). A tool the listing does not show is remembered as having no such header, so it is not
 * looked up on every call. The envelope keeps at most `maxListItems` tools.
 */
export class ToolDeclarations {
  private listing: Promise<boolean> | undefined;
  private readonly defaultTimeoutMs: number;

  constructor(
    private readonly connection: ToolDeclarationsConnection,
    private readonly client: ToolDeclarationsClient,
    options: Pick<McpClientModuleOptions, 'requestTimeoutMs'>,
  ) {
    this.defaultTimeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** True when a call to `name` can be sent as it is: the hot path, no allocation. */
  ready(name: string): boolean {
    const era = this.client.era;
    if (era !== 'modern') return era === 'legacy';
    // Only HTTP sends headers; stdio has no use for the declarations.
    return this.connection.envelope.knowsTool(name) || this.connection.transport?.origin === undefined;
  }

  /**
   * Connects, learns the tool's declaration when it is needed and unknown, and resolves with the call's options, the
   * time the listing took taken off its deadline.
   */
  async prepare(name: string, options: McpCallOptions = {}): Promise<McpCallOptions> {
    await this.client.connect();
    if (this.ready(name)) return options;
    const started = Date.now();
    const timeout = options.timeout ?? this.defaultTimeoutMs;
    const listed = await (this.listing ??= this.list(timeout, options.maxTotalTimeout));
    if (listed) this.connection.envelope.assumeNoHeaders(name);
    const elapsed = Date.now() - started;
    if (elapsed >= timeout || (options.maxTotalTimeout !== undefined && elapsed >= options.maxTotalTimeout))
      throw new McpClientError('timeout', 'tools/call timed out after its deadline, listing the tools');
    return {
      ...options,
      timeout: timeout - elapsed,
      maxTotalTimeout: options.maxTotalTimeout === undefined ? undefined : options.maxTotalTimeout - elapsed,
    };
  }

  // True when the listing went through. A failed one does not fail the call: it goes without the headers, the server
  // says what it misses, and the next call to an unknown tool lists again.
  private list(timeout: number, maxTotalTimeout: number | undefined): Promise<boolean> {
    return this.client
      .listTools({}, { timeout, maxTotalTimeout })
      .then(
        () => true,
        () => false,
      )
      .finally(() => (this.listing = undefined));
  }
}

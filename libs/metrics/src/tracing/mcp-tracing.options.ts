import type { TracerProvider } from '@opentelemetry/api';

/** Options of {@link McpTracing} and `McpTracingModule.forRoot`. */
export interface McpTracingOptions {
  /** Where the spans go. Default: the global tracer provider (`trace.getTracer`), as registered by the SDK. */
  tracerProvider?: TracerProvider;
  /** Trace the servers of this process (requests, and tool, resource and prompt runs). Default: true. */
  server?: boolean;
  /** Trace the clients of this process (requests sent, questions of servers answered). Default: true. */
  client?: boolean;
  /** Record the session id as `mcp.session.id`. Default: true. */
  recordSessionId?: boolean;
  /**
   * Record the URI of the resource read as `mcp.resource.uri`. Default: false, as a URI may carry personal data (a
   * user's id, a file path). It is never part of a span's name.
   */
  recordResourceUri?: boolean;
}

/** {@link McpTracingOptions} with every default applied, but the tracer provider. */
export type ResolvedTracingOptions = Required<Omit<McpTracingOptions, 'tracerProvider'>>;

/** The options with their defaults. */
export function resolveTracingOptions(options: McpTracingOptions = {}): ResolvedTracingOptions {
  return {
    server: options.server ?? true,
    client: options.client ?? true,
    recordSessionId: options.recordSessionId ?? true,
    recordResourceUri: options.recordResourceUri ?? false,
  };
}

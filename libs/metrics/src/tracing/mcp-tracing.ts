import { TracerProvider, trace } from '@opentelemetry/api';
import { MCP_CHANNELS } from '@conduit-mcp/server';
import { MCP_CLIENT_CHANNELS } from '@conduit-mcp/client';
import { ClientInputSpans } from './client-input.spans';
import { ClientRequestSpans } from './client-request.spans';
import { McpTracingOptions, ResolvedTracingOptions, resolveTracingOptions } from './mcp-tracing.options';
import { ServerHandlerSpans } from './server-handler.spans';
import { ServerRequestSpans } from './server-request.spans';
import { attachSpans } from './traced-channel';
import { tracerScope } from './tracer-scope';

/**
 * OpenTelemetry spans of the MCP servers and clients of this process, by the OpenTelemetry MCP semantic conventions,
 * recorded from their telemetry channels: a SERVER span per request served with an INTERNAL span per tool, resource
 * or prompt run inside it; a CLIENT span per request sent (its trace context sent with the request) and a SERVER span
 * per question of a server answered. The spans go to the given tracer provider, or the global one; the handlers run
 * with their span active, so that what they trace nests under it. Uses the OpenTelemetry API only: register an SDK
 * (and a context manager) as usual. In a Nest app, import `McpTracingModule` instead.
 *
 * @example
 * const tracing = new McpTracing({ tracerProvider: provider, recordResourceUri: false });
 * tracing.start();
 * // … serve, call …
 * tracing.stop();
 */
export class McpTracing {
  private readonly options: ResolvedTracingOptions;
  private readonly tracerProvider?: TracerProvider;
  private detach?: Array<() => void>;

  constructor(options: McpTracingOptions = {}) {
    this.options = resolveTracingOptions(options);
    this.tracerProvider = options.tracerProvider;
  }

  /** Whether spans are being recorded (between `start()` and `stop()`). */
  get started(): boolean {
    return this.detach !== undefined;
  }

  /**
   * Starts recording spans (subscribes to the channels). Calling it again while started does nothing.
   *
   * @example
   * new McpTracing().start(); // spans to the global tracer provider
   */
  start(): void {
    if (this.detach) return;
    const scope = tracerScope();
    // Taken now, not in the constructor: the global provider may be registered after this object was made.
    const tracer = (this.tracerProvider ?? trace.getTracerProvider()).getTracer(scope.name, scope.version);
    const detach: Array<() => void> = [];
    if (this.options.server) {
      detach.push(attachSpans(MCP_CHANNELS.request, new ServerRequestSpans(tracer, this.options)));
      const handlers = new ServerHandlerSpans(tracer, this.options);
      for (const kind of ['tool', 'resource', 'prompt'] as const)
        detach.push(attachSpans(MCP_CHANNELS[kind], handlers));
    }
    if (this.options.client) {
      detach.push(attachSpans(MCP_CLIENT_CHANNELS.request, new ClientRequestSpans(tracer, this.options)));
      detach.push(attachSpans(MCP_CLIENT_CHANNELS.input, new ClientInputSpans(tracer)));
    }
    this.detach = detach;
  }

  /**
   * Stops recording spans: unbinds and unsubscribes everything `start()` attached. Spans open at that moment are
   * never ended (nor exported). Calling it again does nothing.
   *
   * @example
   * tracing.stop();
   */
  stop(): void {
    const detach = this.detach;
    this.detach = undefined;
    detach?.forEach((undo) => undo());
  }
}

import { Registry, RegistryContentType } from 'prom-client';
import { ChannelSubscriptions } from './channel.subscriptions';
import { ClientMetrics } from './client.metrics';
import { LabelValues } from './label.values';
import { McpMetricsOptions, resolveMetricsOptions } from './mcp-metrics.options';
import { MetricFactory } from './metric.factory';
import { ServerMetrics } from './server.metrics';

/**
 * Prometheus metrics of the MCP servers and clients of this process, named by the OpenTelemetry semantic conventions
 * for MCP. They subscribe to the servers' and the clients' `node:diagnostics_channel` channels between `start()` and
 * `stop()`; an app that never starts them pays nothing. The metrics are registered on `registry` when constructed.
 *
 * @example
 * const metrics = new McpPrometheusMetrics({ prefix: 'notes_' });
 * metrics.start();
 * // in an HTTP handler of your own:
 * response.setHeader('content-type', metrics.contentType);
 * response.end(await metrics.metrics());
 */
export class McpPrometheusMetrics {
  /** The registry the metrics are on: add metrics of your own to it, or scrape it. */
  readonly registry: Registry<RegistryContentType>;
  private readonly subscriptions = new ChannelSubscriptions();
  private readonly server: ServerMetrics | undefined;
  private readonly client: ClientMetrics | undefined;

  /** Refuses a malformed option (a prefix that is no metric name, empty buckets, …) with a message naming it. */
  constructor(options: McpMetricsOptions = {}) {
    const resolved = resolveMetricsOptions(options);
    this.registry = resolved.registry;
    const factory = new MetricFactory(resolved.registry, resolved.prefix);
    // One bound per label name, shared by the server's and the client's metrics.
    const labels = new LabelValues(resolved.maxLabelValues);
    const buckets = { operation: resolved.buckets, session: resolved.sessionBuckets };
    if (resolved.server) this.server = new ServerMetrics(factory, labels, buckets);
    if (resolved.client) this.client = new ClientMetrics(factory, labels, resolved.buckets);
  }

  /** The `Content-Type` of {@link metrics}' text (the registry's: Prometheus text format unless set otherwise). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * Subscribes to the channels; until {@link stop}, every request, session, stream, cancellation and task of the
   * servers and clients of this process is counted. Calling it again while started does nothing.
   *
   * @example
   * const metrics = new McpPrometheusMetrics();
   * metrics.start();
   */
  start(): void {
    if (this.subscriptions.active) return;
    this.server?.subscribe(this.subscriptions);
    this.client?.subscribe(this.subscriptions);
  }

  /**
   * Unsubscribes from every channel: nothing is counted any more (the values so far stay on the registry). Calling
   * it again does nothing.
   *
   * @example
   * process.on('SIGTERM', () => metrics.stop());
   */
  stop(): void {
    this.subscriptions.clear();
  }

  /**
   * The exposition text of the whole registry (these metrics and any other on it), for a scrape.
   *
   * @example
   * app.get('/metrics', async (_req, res) => res.type(metrics.contentType).send(await metrics.metrics()));
   */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}

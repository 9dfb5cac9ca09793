import { Registry, RegistryContentType } from 'prom-client';

/** Options of {@link McpPrometheusMetrics} (and of `McpMetricsModule.forRoot`). */
export interface McpMetricsOptions {
  /** Prepended to every metric name, e.g. `myapp_`. It must match `/^[a-zA-Z_:][a-zA-Z0-9_:]*$/`. Default none. */
  prefix?: string;
  /**
   * Bucket bounds (seconds) of the operation durations, server and client. Default those of the semantic
   * conventions: `[0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]`.
   */
  buckets?: number[];
  /** Bucket bounds (seconds) of the session durations. Default `[1, 5, 10, 30, 60, 300, 600, 1800, 3600, 14400, 86400]`. */
  sessionBuckets?: number[];
  /**
   * Where the metrics are registered. Default a registry of their own; pass prom-client's global `register` to serve
   * them beside the app's other metrics.
   */
  registry?: Registry<RegistryContentType>;
  /**
   * How many distinct values each label may take; past it, new values are recorded as `_OTHER`. Default 200.
   */
  maxLabelValues?: number;
  /** Observe the servers of this process (`MCP_CHANNELS`). Default true. */
  server?: boolean;
  /** Observe the clients of this process (`MCP_CLIENT_CHANNELS`). Default true. */
  client?: boolean;
}

/** The options with their defaults applied. */
export interface ResolvedMcpMetricsOptions {
  prefix: string;
  buckets: number[];
  sessionBuckets: number[];
  registry: Registry<RegistryContentType>;
  maxLabelValues: number;
  server: boolean;
  client: boolean;
}

/** The semantic conventions' advice for `mcp.server.operation.duration` and `mcp.client.operation.duration`. */
export const DEFAULT_OPERATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** From a second to a day: sessions last from one call to a working day. */
export const DEFAULT_SESSION_BUCKETS = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 14400, 86400];

export const DEFAULT_MAX_LABEL_VALUES = 200;

const METRIC_NAME_PREFIX = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** Applies the defaults and refuses malformed options with a message that names the option. */
export function resolveMetricsOptions(options: McpMetricsOptions = {}): ResolvedMcpMetricsOptions {
  const prefix = options.prefix ?? '';
  if (typeof prefix !== 'string' || (prefix !== '' && !METRIC_NAME_PREFIX.test(prefix)))
    throw new Error(
      `McpPrometheusMetrics: prefix must be empty or match /^[a-zA-Z_:][a-zA-Z0-9_:]*$/ (got ${JSON.stringify(String(prefix).slice(0, 40))})`,
    );
  const maxLabelValues = options.maxLabelValues ?? DEFAULT_MAX_LABEL_VALUES;
  if (!Number.isSafeInteger(maxLabelValues) || maxLabelValues < 1)
    throw new Error('McpPrometheusMetrics: maxLabelValues must be a positive integer');
  return {
    prefix,
    buckets: checkedBuckets('buckets', options.buckets ?? DEFAULT_OPERATION_BUCKETS),
    sessionBuckets: checkedBuckets('sessionBuckets', options.sessionBuckets ?? DEFAULT_SESSION_BUCKETS),
    registry: options.registry ?? new Registry(),
    maxLabelValues,
    server: options.server ?? true,
    client: options.client ?? true,
  };
}

function checkedBuckets(name: string, buckets: number[]): number[] {
  const valid =
    Array.isArray(buckets) &&
    buckets.length > 0 &&
    buckets.every((bound, index) => Number.isFinite(bound) && bound > 0 && (index === 0 || bound > buckets[index - 1]));
  if (!valid)
    throw new Error(`McpPrometheusMetrics: ${name} must be a non-empty array of positive numbers in increasing order`);
  return [...buckets];
}

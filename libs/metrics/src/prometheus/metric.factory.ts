import { Counter, Gauge, Histogram, Registry, RegistryContentType } from 'prom-client';

/** Registers this lib's metrics on one registry, each name with the prefix, refusing a name already there. */
export class MetricFactory {
  constructor(
    private readonly registry: Registry<RegistryContentType>,
    private readonly prefix: string,
  ) {}

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
    return new Histogram({ name: this.named(name), help, labelNames, buckets, registers: [this.registry] });
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name: this.named(name), help, labelNames, registers: [this.registry] });
  }

  gauge<L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> {
    return new Gauge({ name: this.named(name), help, labelNames, registers: [this.registry] });
  }

  private named(name: string): string {
    const full = this.prefix + name;
    // prom-client's own error does not say how to get out of it.
    if (this.registry.getSingleMetric(full))
      throw new Error(
        `McpPrometheusMetrics: the registry already has a metric named ${full}: give each McpPrometheusMetrics on one registry its own prefix, or its own registry`,
      );
    return full;
  }
}

/**
 * A gauge of things alive (sessions, streams, tasks), counted here per label set so that an end seen without its
 * start (it started before the metrics did) never takes it below zero.
 */
export class ActiveGauge<L extends string> {
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly gauge: Gauge<L>,
    private readonly labelNames: readonly L[],
  ) {}

  inc(labels: Record<L, string>): void {
    const key = this.keyOf(labels);
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    this.gauge.set(labels, count);
  }

  dec(labels: Record<L, string>): void {
    const key = this.keyOf(labels);
    const count = this.counts.get(key) ?? 0;
    if (count === 0) return;
    this.counts.set(key, count - 1);
    this.gauge.set(labels, count - 1);
  }

  private keyOf(labels: Record<L, string>): string {
    return JSON.stringify(this.labelNames.map((name) => labels[name]));
  }
}

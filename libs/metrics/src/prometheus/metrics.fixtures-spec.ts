import { channel, tracingChannel } from 'node:diagnostics_channel';
import { Registry, RegistryContentType } from 'prom-client';

/** One sample of a metric: its labels and value (a histogram has `_bucket`, `_sum` and `_count` samples). */
export interface Sample {
  name: string;
  labels: Record<string, string | number>;
  value: number;
}

/** Every sample of the metric `name` (a histogram's included), from the registry. */
export async function samplesOf(registry: Registry<RegistryContentType>, name: string): Promise<Sample[]> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric named ${name}`);
  const { values } = await metric.get();
  return values.map((value) => ({
    name: (value as { metricName?: string }).metricName ?? name,
    labels: value.labels as Record<string, string | number>,
    value: value.value,
  }));
}

/** The value of the sample named `name` (default the metric's own) whose labels include `labels`; 0 when none. */
export async function valueOf(
  registry: Registry<RegistryContentType>,
  metric: string,
  labels: Record<string, string>,
  name = metric,
): Promise<number> {
  const found = (await samplesOf(registry, metric)).filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return found.reduce((sum, sample) => sum + sample.value, 0);
}

/** The label sets of a histogram's series (one per `_count` sample). */
export async function seriesOf(
  registry: Registry<RegistryContentType>,
  histogram: string,
): Promise<Array<Record<string, string | number>>> {
  return (await samplesOf(registry, histogram))
    .filter((sample) => sample.name === `${histogram}_count`)
    .map((sample) => sample.labels);
}

/** Publishes a whole traced operation on the tracing channel `name`, as a publisher does: start, end, asyncStart, asyncEnd. */
export function traceOperation<T extends object>(name: string, context: T): void {
  const traced = tracingChannel<unknown, T>(name);
  traced.start.publish(context);
  traced.end.publish(context);
  traced.asyncStart.publish(context);
  traced.asyncEnd.publish(context);
}

/** Publishes `message` on the plain channel `name`. */
export function publish(name: string, message: object): void {
  channel(name).publish(message);
}

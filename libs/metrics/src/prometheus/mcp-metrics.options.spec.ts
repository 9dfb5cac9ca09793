import { Registry } from 'prom-client';
import {
  DEFAULT_MAX_LABEL_VALUES,
  DEFAULT_OPERATION_BUCKETS,
  DEFAULT_SESSION_BUCKETS,
  resolveMetricsOptions,
} from './mcp-metrics.options';

describe('resolveMetricsOptions', () => {
  it('applies the defaults: no prefix, the conventions buckets, a registry of its own, both sides', () => {
    const resolved = resolveMetricsOptions();
    expect(resolved).toMatchObject({
      prefix: '',
      buckets: DEFAULT_OPERATION_BUCKETS,
      sessionBuckets: DEFAULT_SESSION_BUCKETS,
      maxLabelValues: DEFAULT_MAX_LABEL_VALUES,
      server: true,
      client: true,
    });
    expect(resolved.registry).toBeInstanceOf(Registry);
    expect(resolveMetricsOptions().registry).not.toBe(resolved.registry);
  });

  it('keeps the options given', () => {
    const registry = new Registry();
    expect(
      resolveMetricsOptions({ prefix: 'my:app_', buckets: [1, 2], registry, maxLabelValues: 5, client: false }),
    ).toMatchObject({ prefix: 'my:app_', buckets: [1, 2], registry, maxLabelValues: 5, server: true, client: false });
  });

  it.each([
    [{ prefix: '1app_' }, 'prefix must be empty or match'],
    [{ prefix: 'my-app_' }, 'prefix must be empty or match'],
    [{ prefix: 'app ' }, 'prefix must be empty or match'],
    [{ buckets: [] }, 'buckets must be a non-empty array of positive numbers in increasing order'],
    [{ buckets: [1, 1] }, 'buckets must be a non-empty array'],
    [{ buckets: [2, 1] }, 'buckets must be a non-empty array'],
    [{ buckets: [0, 1] }, 'buckets must be a non-empty array'],
    [{ sessionBuckets: [1, Number.POSITIVE_INFINITY] }, 'sessionBuckets must be a non-empty array'],
    [{ maxLabelValues: 0 }, 'maxLabelValues must be a positive integer'],
    [{ maxLabelValues: 1.5 }, 'maxLabelValues must be a positive integer'],
  ])('refuses %j', (options, message) => {
    expect(() => resolveMetricsOptions(options)).toThrow(message);
  });
});

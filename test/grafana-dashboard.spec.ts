import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpPrometheusMetrics } from '@conduit-mcp/metrics';

// The Grafana dashboard of examples/observability queries what McpMetricsModule exports: every metric it names exists,
// and every label it groups or filters by is a label of that metric. A renamed metric or label fails here.

interface Panel {
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
}

const dashboard = JSON.parse(
  readFileSync(join(__dirname, '..', 'examples', 'observability', 'grafana-dashboard.json'), 'utf8'),
) as { panels: Panel[]; templating: { list: Array<{ query?: unknown; definition?: string }> } };

const metrics = new McpPrometheusMetrics();
const labelsOf = new Map(
  metrics.registry
    .getMetricsAsArray()
    .map((metric) => [metric.name, (metric as unknown as { labelNames?: string[] }).labelNames ?? []]),
);
const SERIES_SUFFIXES = /_(bucket|count|sum)$/;

/**
 * The metrics an expression reads (a histogram's series named by the histogram): a name before a selector or a range,
 * or the first argument of `label_values`.
 */
function metricsIn(expr: string): string[] {
  const selected = [...expr.matchAll(/\b([a-z_]+)(?=\{|\[)/g)].map(([, name]) => name);
  const variables = [...expr.matchAll(/label_values\((\w+),/g)].map(([, name]) => name);
  return [...selected, ...variables].map((name) => (labelsOf.has(name) ? name : name.replace(SERIES_SUFFIXES, '')));
}

/** The labels an expression groups by or filters on. */
function labelsIn(expr: string): string[] {
  const grouped = [...expr.matchAll(/\bby \(([^)]*)\)/g)].flatMap(([, list]) => list.split(',').map((l) => l.trim()));
  const matched = [...expr.matchAll(/[{,]\s*([a-z_]+)\s*(?:=~|!=|=)/g)].map(([, label]) => label);
  return [...grouped, ...matched].filter((label) => label !== 'le');
}

const queries = [
  ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((t) => ({ title: panel.title, expr: t.expr }))),
  ...dashboard.templating.list
    .filter((variable) => variable.definition)
    .map((variable) => ({ title: 'variable', expr: variable.definition! })),
];

describe('examples/observability/grafana-dashboard.json', () => {
  it('has panels with queries', () => {
    expect(queries.length).toBeGreaterThan(15);
  });

  it.each(queries.map((q) => [q.title, q.expr]))('%s: its metrics and labels exist', (_title, expr) => {
    const names = metricsIn(expr);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect([...labelsOf.keys()]).toContain(name);
    const known = new Set(names.flatMap((name) => labelsOf.get(name) ?? []));
    for (const label of labelsIn(expr)) expect([...known]).toContain(label);
  });

  it('label_values(metric, label) of each variable names a label of that metric', () => {
    for (const variable of dashboard.templating.list.filter((v) => v.definition)) {
      const [, metric, label] = /label_values\((\w+), (\w+)\)/.exec(variable.definition!)!;
      expect(labelsOf.get(metric.replace(SERIES_SUFFIXES, ''))).toContain(label);
    }
  });
});

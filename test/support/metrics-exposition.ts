// Reads the Prometheus text exposition format (version 0.0.4) that a scrape answers, for the metrics e2e suites.

/** One sample line: `name{labels} value`. */
export interface ExposedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The sample lines of an exposition text (comments and blank lines skipped). */
export function parseExposition(text: string): ExposedSample[] {
  const samples: ExposedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL_PAIR))
      labels[key] = raw.replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The samples named `name` whose labels include `labels`. */
export function samplesNamed(
  samples: ExposedSample[],
  name: string,
  labels: Record<string, string> = {},
): ExposedSample[] {
  return samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The sum of the values of the samples named `name` whose labels include `labels` (0 when none). */
export function valueOf(samples: ExposedSample[], name: string, labels: Record<string, string> = {}): number {
  return samplesNamed(samples, name, labels).reduce((sum, sample) => sum + sample.value, 0);
}

import { OTHER } from '../semconv/mcp.semconv';
import { LabelValues, MAX_LABEL_VALUE_LENGTH } from './label.values';

describe('LabelValues sanitizing', () => {
  const labels = () => new LabelValues(10);

  it('removes control and bidi characters (a label value is one line of the exposition)', () => {
    expect(labels().bound('tool', 'to\u0000ol\n\r\u007f\u0085\u202ename')).toBe('toolname');
  });

  it('clamps a long value to the bound, never inside a surrogate pair', () => {
    const long = labels().bound('tool', 'x'.repeat(500));
    expect([...long]).toHaveLength(MAX_LABEL_VALUE_LENGTH);
    expect(long.endsWith('…')).toBe(true);
    const pairs = labels().bound('tool', '😀'.repeat(200));
    expect([...pairs].slice(0, -1).every((char) => char === '😀')).toBe(true);
  });

  it('keeps printable text, quotes and backslashes included (the exposition escapes them)', () => {
    expect(labels().bound('tool', 'a "b" \\ c é')).toBe('a "b" \\ c é');
  });
});

describe('LabelValues', () => {
  it('admits the first values of each label up to the bound, then answers _OTHER', () => {
    const labels = new LabelValues(2);
    expect(labels.bound('tool', 'a')).toBe('a');
    expect(labels.bound('tool', 'b')).toBe('b');
    expect(labels.bound('tool', 'c')).toBe(OTHER);
    expect(labels.bound('tool', 'a')).toBe('a');
    expect(labels.bound('prompt', 'c')).toBe('c');
    expect(labels.size('tool')).toBe(2);
  });

  it('lets the empty string, undefined and _OTHER through without counting them', () => {
    const labels = new LabelValues(1);
    expect(labels.bound('tool', '')).toBe('');
    expect(labels.bound('tool', undefined)).toBe('');
    expect(labels.bound('tool', OTHER)).toBe(OTHER);
    expect(labels.size('tool')).toBe(0);
    expect(labels.bound('tool', 'a')).toBe('a');
    expect(labels.bound('tool', '')).toBe('');
    expect(labels.bound('tool', OTHER)).toBe(OTHER);
  });

  it('counts values once sanitized: a value and its variant with control characters are one value', () => {
    const labels = new LabelValues(1);
    expect(labels.bound('tool', 'we\u0007ather')).toBe('weather');
    expect(labels.bound('tool', 'weather')).toBe('weather');
    expect(labels.bound('tool', 'w\u0000eather')).toBe('weather');
    expect(labels.bound('tool', '\u0001\u0002')).toBe('');
    expect(labels.size('tool')).toBe(1);
  });

  it('bounds every entry of a record', () => {
    const labels = new LabelValues(1);
    labels.bound('tool', 'a');
    expect(labels.boundAll({ tool: 'b', prompt: 'p\n', server: undefined })).toEqual({
      tool: OTHER,
      prompt: 'p',
      server: '',
    });
  });
});

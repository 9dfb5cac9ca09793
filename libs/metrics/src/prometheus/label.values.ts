import { sanitizeText } from '@conduit-mcp/core';
import { OTHER } from '../semconv/mcp.semconv';

/** The longest label value kept; longer values are cut. */
export const MAX_LABEL_VALUE_LENGTH = 128;

/**
 * The one place every label value goes through. It sanitizes (core's `sanitizeText`: control, bidi and zero-width
 * characters removed, clamped to {@link MAX_LABEL_VALUE_LENGTH} code points) and admits at most `maxPerLabel` distinct values per label name; any other value
 * becomes `_OTHER`, so that a client sending made-up names cannot grow the number of series without end. The empty
 * string and `_OTHER` always pass and do not count.
 */
export class LabelValues {
  private readonly admitted = new Map<string, Set<string>>();

  constructor(private readonly maxPerLabel: number) {}

  /** The value to record for `label`: `value` sanitized, or `_OTHER` once the label has all the values it may have. */
  bound(label: string, value: string | undefined): string {
    if (value === undefined || value === '' || value === OTHER) return value ?? '';
    let values = this.admitted.get(label);
    // Only sanitized values are admitted, so a value found as it is needs no sanitizing.
    if (values?.has(value)) return value;
    const clean = sanitizeText(value, MAX_LABEL_VALUE_LENGTH);
    if (clean === '' || clean === OTHER) return clean;
    if (!values) this.admitted.set(label, (values = new Set()));
    if (values.has(clean)) return clean;
    if (values.size >= this.maxPerLabel) return OTHER;
    values.add(clean);
    return clean;
  }

  /** {@link bound} for every entry of `labels`. */
  boundAll<L extends string>(labels: Record<L, string | undefined>): Record<L, string> {
    const bounded = {} as Record<L, string>;
    for (const label of Object.keys(labels) as L[]) bounded[label] = this.bound(label, labels[label]);
    return bounded;
  }

  /** How many distinct values `label` has admitted. */
  size(label: string): number {
    return this.admitted.get(label)?.size ?? 0;
  }
}

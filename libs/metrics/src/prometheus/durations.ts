/** Whether `ms` is a duration a histogram can take: a finite, non-negative number of milliseconds. */
export function isDuration(ms: number | undefined): ms is number {
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0;
}

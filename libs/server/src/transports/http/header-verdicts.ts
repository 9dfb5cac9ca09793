/**
 * Remembers a verdict on a header value (Accept, Host, Origin): a client sends the same values request after request,
 * and parsing them each time was a measurable share of a call. Bounded: past `max` distinct values it starts over, so
 * a client sending endless variants costs parsing, never memory.
 */
export class HeaderVerdicts<T> {
  private readonly known = new Map<string, T>();

  constructor(
    private readonly decide: (value: string) => T,
    private readonly max = 64,
  ) {}

  of(value: string): T {
    const known = this.known.get(value);
    if (known !== undefined) return known;
    const verdict = this.decide(value);
    if (this.known.size >= this.max) this.known.clear();
    this.known.set(value, verdict);
    return verdict;
  }
}

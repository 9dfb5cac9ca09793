// The requests whose guards have let them through: an error after that point (the method, a pipe, an interceptor)
// is the handler's, not a refusal. Marked where the pipeline leaves its guards behind.
const passed = new WeakSet<object>();

/** Records that the guards of the request with context `ctx` let it through. */
export function markGuardsPassed(ctx: unknown): void {
  if (typeof ctx === 'object' && ctx !== null) passed.add(ctx);
}

/** Whether the guards of the request with context `ctx` let it through (false while they run, or if one refused). */
export function guardsPassed(ctx: object): boolean {
  return passed.has(ctx);
}

/**
 * Data a handler keeps across the rounds of a modern-era multi round-trip request (`ctx.state`). It travels to the
 * client and back sealed in `requestState` (HMAC-signed, bound to the request and caller, expiring), so values must
 * be JSON. In the legacy era a request has one round and the state lives as long as the call.
 */
export class McpRequestState {
  private readonly values: Record<string, unknown>;

  constructor(initial: Record<string, unknown> = {}) {
    this.values = { ...initial };
  }

  get<T = unknown>(key: string): T | undefined {
    return this.values[key] as T | undefined;
  }

  set(key: string, value: unknown): void {
    if (value === undefined) delete this.values[key];
    else this.values[key] = value;
  }

  has(key: string): boolean {
    return key in this.values;
  }

  /** The values, for sealing into `requestState`. */
  toJSON(): Record<string, unknown> {
    return { ...this.values };
  }
}

/**
 * What the optional `health()` of a `SessionStore`, `EventStore`, `TaskStore` or `McpEventBus` reports: `up`, and
 * whatever details the implementation adds (a connection's state, a round trip), which `McpHealthIndicator` shows
 * as they are.
 */
export interface McpStateHealth {
  up: boolean;
  // `any`, not `unknown`: an implementation's own health interface has no index signature, and would not fit.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [detail: string]: any;
}

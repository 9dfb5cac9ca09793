/** What `subscriptions/listen` (modern) returns once the server acknowledged it. */
export interface McpListenHandle {
  /** The part of the filter the server agreed to honour. */
  acknowledged: Record<string, unknown>;
  /** Resolves when the subscription ends: `graceful` (the server ended it with a result) or `closed`. */
  closed: Promise<'graceful' | 'closed'>;
  close(): void;
}

export type McpClientState = 'idle' | 'connecting' | 'connected' | 'closed';

/** Which page of a list: the one at `cursor`, else every page unless `all` is false. */
export interface McpListParams {
  cursor?: string;
  all?: boolean;
}

/** Why a client call failed. */
export type McpClientErrorKind =
  'protocol' | 'timeout' | 'cancelled' | 'transport' | 'authorization' | 'input_handler' | 'rpc';

/**
 * A failed client call: `rpc` carries the server's JSON-RPC `code` and `data`; `protocol` a message the server
 * should not have sent; `timeout`, `cancelled`, `transport` what happened on our side; `authorization` an OAuth
 * authorization that could not complete (its `cause`: the `McpAuthorizationError`); `input_handler` an MRTR input
 * handler that threw or refused.
 */
export class McpClientError extends Error {
  constructor(
    readonly kind: McpClientErrorKind,
    message: string,
    readonly code?: number,
    readonly data?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'McpClientError';
  }
}

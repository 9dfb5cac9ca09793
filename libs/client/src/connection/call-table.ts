import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import { JsonRpcId, JsonRpcRequest, JsonRpcResponse, sanitizeText } from '@conduit-mcp/core';
import { McpClientError } from '../errors/mcp-client.error';
import { rpcErrorMessage } from '../errors/rpc-error.message';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { observeRequest, reportRequest, requestsObserved, withTraceContext } from '../telemetry/client-telemetry';
import { ConnectionHost } from './connection.host';
import { McpCallOptions } from './mcp-call-options';
import { McpListenHandle } from './mcp-client.types';
import { ModernEnvelope } from './modern-envelope';
import { PendingCall } from './pending-call';

/** A call's deadline unless its options or the module's `requestTimeoutMs` say otherwise. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Our requests in flight to one server: their ids, deadlines and cancellation (told to the server as its era wants),
 * the responses that settle them, and the `subscriptions/listen` calls waiting for their acknowledgement.
 */
export class CallTable {
  private readonly pending = new Map<JsonRpcId, PendingCall>();
  private readonly listens = new Map<JsonRpcId, (acknowledged: Record<string, unknown>) => void>();
  private nextId = 0;

  constructor(
    private readonly host: ConnectionHost,
    private readonly envelope: ModernEnvelope,
    private readonly options: Pick<McpClientModuleOptions, 'requestTimeoutMs' | 'assigns'>,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  get(id: JsonRpcId): PendingCall | undefined {
    return this.pending.get(id);
  }

  /** The call in flight when there is exactly one. */
  only(): PendingCall | undefined {
    return this.pending.size === 1 ? [...this.pending.values()][0] : undefined;
  }

  newId(): JsonRpcId {
    return ++this.nextId;
  }

  /** Sends one request and waits for its response (no MRTR). */
  send(
    method: string,
    params: Record<string, unknown>,
    options: McpCallOptions = {},
    id: JsonRpcId = this.newId(),
  ): Promise<Record<string, unknown>> {
    const transport = this.host.transport();
    if (!transport) return Promise.reject(new McpClientError('transport', 'Not connected'));
    if (options.signal?.aborted) return Promise.reject(new McpClientError('cancelled', `${method} was cancelled`));
    // Before the request is built: a trace's `start` runs in the caller's context and may give it a trace context.
    const observed = requestsObserved()
      ? observeRequest({ scope: this.host.eventScope(method), id, params, transport, revision: this.host.revision() })
      : undefined;
    let withMeta = this.envelope.params(params, options.onProgress ? id : undefined);
    if (observed?.trace) withMeta = withTraceContext(withMeta, observed.trace);
    // Aborting the send closes the request's stream on HTTP (modern cancellation) and stops any resumption; stdio has
    // no per-request stream, and an AbortController per call was a measurable share of a stdio call.
    const controller = transport.origin !== undefined ? new AbortController() : undefined;
    const call = new PendingCall(
      id,
      method,
      options.timeout ?? this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      options.maxTotalTimeout,
      options.assigns ?? this.options.assigns ?? {},
      options.onProgress,
      (expired) => this.abandon(expired, 'Timed out', controller),
    );
    this.pending.set(id, call);
    const onAbort = () => {
      this.abandon(call, 'Cancelled by the client', controller);
      call.reject(new McpClientError('cancelled', `${method} was cancelled`));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    transport
      .send({ jsonrpc: '2.0', id, method, params: withMeta } as JsonRpcRequest, {
        signal: controller?.signal,
        headers: this.envelope.headers(method, withMeta),
        deadline: controller && call,
      })
      .catch((error: Error) =>
        call.reject(
          new McpClientError(
            error instanceof McpAuthorizationError ? 'authorization' : 'transport',
            `Cannot send ${method}: ${error.message}`,
            undefined,
            undefined,
            { cause: error },
          ),
        ),
      );
    const settled = call.promise.finally(() => {
      options.signal?.removeEventListener('abort', onAbort);
      this.pending.delete(id);
    });
    return observed === undefined ? settled : reportRequest(settled, observed);
  }

  /**
   * Modern `subscriptions/listen`: resolves once the server acknowledged the filter; the subscription lasts until
   * the handle is closed or the server ends it.
   */
  async listen(notifications: Record<string, unknown>): Promise<McpListenHandle> {
    const controller = new AbortController();
    const id = this.newId();
    const acknowledged = new Promise<Record<string, unknown>>((resolve) => this.listens.set(id, resolve));
    const closed = this.send(
      'subscriptions/listen',
      { notifications },
      { signal: controller.signal, timeout: 2 ** 31 - 1 },
      id,
    ).then(
      () => 'graceful' as const,
      () => 'closed' as const,
    );
    const ack = await Promise.race([acknowledged, closed.then(() => undefined)]);
    this.listens.delete(id);
    if (!ack) throw new McpClientError('protocol', 'The server ended the subscription before acknowledging it');
    return { acknowledged: ack, closed, close: () => controller.abort() };
  }

  /** `notifications/subscriptions/acknowledged` for the listen call `id`. */
  acknowledge(id: JsonRpcId, notifications: Record<string, unknown>): void {
    this.listens.get(id)?.(notifications);
  }

  onResponse(response: JsonRpcResponse, synthetic: boolean): void {
    const call = response.id === undefined ? undefined : this.pending.get(response.id);
    if (!call) return;
    if ('error' in response) {
      const { code, message, data } = response.error;
      // The transport answers for a server that could not (HTTP error, oversize, dropped stream): not the server's word.
      const kind = synthetic ? 'transport' : 'rpc';
      call.reject(
        new McpClientError(
          kind,
          synthetic ? sanitizeText(message, 512) : rpcErrorMessage(code, message, data),
          code,
          data,
        ),
      );
    } else {
      call.resolve(response.result);
    }
  }

  /** Fails every call in flight, each with an error of its own. */
  rejectAll(error: () => Error): void {
    for (const call of this.pending.values()) call.reject(error());
    this.pending.clear();
  }

  /**
   * A call we gave up on (timeout, cancel): tell the server, as the era wants. Modern HTTP cancels by closing the
   * request's stream; otherwise a notification, and the stream stays open so that the server can still cancel the
   * questions it asked on it.
   */
  private abandon(call: PendingCall, reason: string, stream: AbortController | undefined): void {
    this.pending.delete(call.id);
    if (this.host.era() === 'modern' && stream) return stream.abort(); // modern HTTP
    if (call.method !== 'initialize') {
      void this.host
        .write({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: call.id, reason },
        })
        .catch(() => undefined);
    }
  }
}

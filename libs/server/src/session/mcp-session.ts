import {
  ClientCapabilities,
  Implementation,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcResponse,
  LegacyRevision,
  LoggingLevel,
  McpError,
  ErrorCode,
  jsonSizeUpTo,
  serializeMessage,
} from '@conduit-mcp/core';
import { randomUUID } from 'node:crypto';
import { McpAbortedError } from '../errors/mcp-aborted.error';
import { MessageSink } from './message-sink.interface';
import { SessionRecord } from './session-record';
import { RequestCancellation } from './request-cancellation';
import { nextServerRequestId } from './server-request.ids';
import type { TransportKind } from '../dispatch/transport-facts.interface';

/** Most notifications kept for a session while it has no outbound channel. */
const MAX_UNDELIVERED = 100;

/**
 * A notification sent alike to many sessions (a list change, a resource update): the message and its JSON, made once
 * per broadcast and shared by every session and stream it reaches.
 */
export interface SharedNotification {
  readonly message: JsonRpcNotification;
  readonly json: string;
}

/** A {@link SharedNotification} of `method` with `params`. */
export function sharedNotification(method: string, params?: Record<string, unknown>): SharedNotification {
  const message: JsonRpcNotification =
    params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
  return { message, json: serializeMessage(message) };
}

/** A notification kept for when an outbound channel attaches; `json` set for a broadcast's. */
interface Undelivered {
  message: JsonRpcNotification;
  json?: string;
}

interface PendingRequest {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  cleanup: () => void;
}

/**
 * One legacy-era conversation: a stdio connection, an HTTP session (`Mcp-Session-Id`), a legacy SSE connection,
 * or, in stateless HTTP mode, a single request. Holds what `initialize` negotiated and what the client set since.
 */
export class McpSession {
  revision: LegacyRevision | undefined;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities = {};
  initialized = false;
  /** The level set by `logging/setLevel`; until the client sets one, every level is sent (the spec leaves it to us). */
  logLevel: LoggingLevel | undefined;
  private subscribedUris: Set<string> | undefined;
  private outboundSink: MessageSink | undefined;
  /** Notifications sent while no outbound channel was attached, delivered when one attaches (bounded). */
  private undelivered: Undelivered[] | undefined;
  lastActivity = Date.now();
  createdAt = this.lastActivity;
  /** When the record's idle clock in the session store was last restarted. */
  recordTouchedAt = this.lastActivity;
  /** Who opened the session (its principal: subject, else `client:<clientId>`); another caller cannot use it. */
  principal: string | undefined;
  /** The transport the session was opened on (HTTP takes a session's messages on that transport only). */
  openedOver: TransportKind | undefined;
  /**
   * Where `InFlightRequests` lists this session while it has requests in flight (-1: not listed). A field, not a
   * lookup: a modern-era request has a session of its own, and hashing a fresh object into a set per request costs.
   * @internal
   */
  inFlightSlot = -1;

  private readonly inFlight = new Map<JsonRpcId, RequestCancellation>();
  // Made on first use: most sessions (every modern or stateless HTTP request has one) never ask the client anything.
  private pendingRequests: Map<string, PendingRequest> | undefined;
  // The JSON size of the params of the requests in `pendingRequests`.
  private pendingBytes = 0;
  private closeListeners: Set<() => void> | undefined;
  private outboundListeners: Set<() => void> | undefined;

  /** The resource URIs the client subscribed to (`resources/subscribe`). */
  get subscriptions(): Set<string> {
    return (this.subscribedUris ??= new Set());
  }

  /** Whether the client subscribed to this resource URI. */
  subscribedTo(uri: string): boolean {
    return this.subscribedUris?.has(uri) ?? false;
  }

  private get pending(): Map<string, PendingRequest> {
    return (this.pendingRequests ??= new Map());
  }
  private ended = false;

  /** `id`: a session's own; without one, a random id is made if something asks (most transient sessions never do). */
  constructor(
    private assignedId?: string,
    readonly persistent = true,
  ) {}

  get id(): string {
    return (this.assignedId ??= randomUUID());
  }

  /** Where messages unrelated to a request go: the standalone GET stream, stdout. */
  get outbound(): MessageSink | undefined {
    return this.outboundSink;
  }

  set outbound(sink: MessageSink | undefined) {
    this.outboundSink = sink;
    while (sink && !sink.closed && this.undelivered?.length) {
      const { message, json } = this.undelivered.shift()!;
      sink.send(message, json);
    }
    if (sink && this.outboundListeners) for (const listener of [...this.outboundListeners]) listener();
  }

  /** Calls `listener` each time an outbound channel attaches, until the returned function is called. */
  onOutbound(listener: () => void): () => void {
    const listeners = (this.outboundListeners ??= new Set());
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  get closed(): boolean {
    return this.ended;
  }

  /**
   * Set before it closes when the session is ended for good (deleted: `DELETE`, `endSessionsOf`, its transport gone),
   * not merely closed on this instance (idle here, shutdown) while others may still serve it.
   */
  endedForGood = false;

  /** A live session rebuilt from its record (made by another instance, or before a restart). */
  static fromRecord(record: SessionRecord): McpSession {
    const session = new McpSession(record.id);
    session.principal = record.principal;
    session.openedOver = record.transport;
    session.createdAt = record.createdAt;
    session.applyRecord(record);
    return session;
  }

  /**
   * Takes what a client may change during the session from its record (another instance changed it: a subscription,
   * the log level). Who owns the session and where it was opened never change.
   */
  applyRecord(record: SessionRecord): void {
    this.revision = record.revision;
    this.clientInfo = record.clientInfo;
    this.clientCapabilities = record.clientCapabilities;
    this.logLevel = record.logLevel;
    this.initialized = record.initialized;
    this.subscribedUris = record.subscriptions.length ? new Set(record.subscriptions) : undefined;
  }

  /** What the session is, as data (its record in the `SessionStore`). */
  record(): SessionRecord {
    const record: SessionRecord = {
      id: this.id,
      revision: this.revision,
      clientInfo: this.clientInfo,
      clientCapabilities: this.clientCapabilities,
      logLevel: this.logLevel,
      subscriptions: this.subscribedUris ? [...this.subscribedUris] : [],
      initialized: this.initialized,
      createdAt: this.createdAt,
    };
    if (this.principal !== undefined) record.principal = this.principal;
    if (this.openedOver !== undefined) record.transport = this.openedOver;
    return record;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  touch(): void {
    this.lastActivity = Date.now();
  }

  /** Registers an in-flight client request; the returned cancellation aborts when the client cancels it. */
  beginRequest(id: JsonRpcId): RequestCancellation | undefined {
    if (this.inFlight.has(id)) return undefined;
    const cancellation = new RequestCancellation();
    this.inFlight.set(id, cancellation);
    return cancellation;
  }

  endRequest(id: JsonRpcId, cancellation: RequestCancellation): void {
    if (this.inFlight.get(id) === cancellation) this.inFlight.delete(id);
  }

  /** Aborts an in-flight request (`notifications/cancelled`). Returns false when no such request runs. */
  cancelRequest(id: JsonRpcId, reason: string): boolean {
    const cancellation = this.inFlight.get(id);
    if (!cancellation) return false;
    this.inFlight.delete(id);
    cancellation.abort(new McpAbortedError(reason));
    return true;
  }

  /**
   * Sends a notification unrelated to any request on the session's outbound channel. Without one (an HTTP client
   * that has not opened its GET stream yet), the last few are kept for when it does.
   */
  notify(method: string, params?: Record<string, unknown>): boolean {
    if (this.ended) return false;
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    const sink = this.outboundSink;
    if (sink && !sink.closed) return sink.send(message);
    this.keep({ message });
    return true;
  }

  /**
   * Sends a broadcast's notification on the outbound channel. Without one, it is kept like {@link notify}'s, but once:
   * the same broadcast already waiting (the list changed again, the resource was updated again) says all a second
   * copy would, so a session without a stream holds one per list or resource, not one per broadcast.
   */
  notifyShared(notification: SharedNotification): boolean {
    if (this.ended) return false;
    const sink = this.outboundSink;
    if (sink && !sink.closed) return sink.send(notification.message, notification.json);
    if (this.undelivered?.some((kept) => kept.json === notification.json)) return true;
    this.keep(notification);
    return true;
  }

  private keep(undelivered: Undelivered): void {
    // A one-element literal: most sessions without a stream keep one or two (a default array reserves 17 slots).
    if (!this.undelivered) return void (this.undelivered = [undelivered]);
    if (this.undelivered.length >= MAX_UNDELIVERED) this.undelivered.shift();
    this.undelivered.push(undelivered);
  }

  /**
   * Sends a server-to-client request on `sink` and resolves with the client's result.
   * Rejects with the client's error, on timeout, on `signal` abort, or when the session ends; at once when the
   * session already has `maxPending` requests waiting for an answer, or when this one's params would take those
   * waiting past `maxPendingBytes` (their JSON size).
   */
  request(
    method: string,
    params: Record<string, unknown>,
    sink: MessageSink,
    options: { timeoutMs: number; signal?: AbortSignal; maxPending?: number; maxPendingBytes?: number },
  ): Promise<Record<string, unknown>> {
    if (this.ended) return Promise.reject(new McpError(ErrorCode.ServerError, 'Session ended'));
    // Each one holds a timer and its asker's state until the client answers, which only the client decides.
    const { maxPending, maxPendingBytes } = options;
    if (maxPending !== undefined && (this.pendingRequests?.size ?? 0) >= maxPending) {
      return Promise.reject(
        new McpError(
          ErrorCode.ServerError,
          `Too many requests to the client waiting for its answer in this session (at most ${maxPending})`,
        ),
      );
    }
    let bytes = 0;
    if (maxPendingBytes !== undefined) {
      const room = maxPendingBytes - this.pendingBytes;
      bytes = jsonSizeUpTo(params, Math.max(room, 0));
      if (bytes > room) {
        return Promise.reject(
          new McpError(
            ErrorCode.ServerError,
            `The requests to the client waiting for its answer in this session would pass ${maxPendingBytes} bytes`,
          ),
        );
      }
    }
    // Unique across instances: another instance's copy of this session may hold a question of its own.
    const id = nextServerRequestId();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.get(id)?.cleanup();
        sink.send({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'Request aborted' },
        });
        reject(
          options.signal?.reason instanceof Error
            ? options.signal.reason
            : new McpError(ErrorCode.ServerError, 'Request aborted'),
        );
      };
      const timer = setTimeout(() => {
        this.pending.get(id)?.cleanup();
        sink.send({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'Timed out' },
        });
        reject(new McpError(ErrorCode.ServerError, `Client did not answer ${method} in time`));
      }, options.timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if (this.pending.delete(id)) this.pendingBytes -= bytes;
      };
      this.pending.set(id, { resolve, reject, cleanup });
      this.pendingBytes += bytes;
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (!sink.send({ jsonrpc: '2.0', id, method, params })) {
        cleanup();
        reject(new McpError(ErrorCode.ServerError, 'The request stream is closed'));
      }
    });
  }

  /** Routes a client's response to the server-to-client request it answers. False when nothing waits for it. */
  resolveResponse(response: JsonRpcResponse): boolean {
    const key = String(response.id);
    const waiter = this.pendingRequests?.get(key);
    if (!waiter || typeof response.id !== 'string') return false;
    waiter.cleanup();
    if ('error' in response)
      waiter.reject(new McpError(response.error.code, response.error.message, response.error.data));
    else waiter.resolve(response.result);
    return true;
  }

  onClose(listener: () => void): () => void {
    const listeners = (this.closeListeners ??= new Set());
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /**
   * Ends the session: aborts in-flight requests (their signal's reason an `McpAbortedError` with `reason`), fails
   * pending server-to-client requests, tells listeners.
   */
  close(reason = 'Session ended'): void {
    if (this.ended) return;
    this.ended = true;
    // Most sessions end with nothing in flight, pending or listening (every modern-era request has one).
    if (this.inFlight.size) {
      for (const cancellation of this.inFlight.values()) cancellation.abort(new McpAbortedError(reason));
      this.inFlight.clear();
    }
    if (this.pendingRequests?.size) {
      for (const waiter of [...this.pendingRequests.values()]) {
        waiter.cleanup();
        waiter.reject(new McpError(ErrorCode.ServerError, 'Session ended'));
      }
    }
    this.outboundSink = undefined;
    this.undelivered = undefined;
    if (this.closeListeners) for (const listener of this.closeListeners) listener();
    this.closeListeners = undefined;
    this.outboundListeners = undefined;
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import { JsonRpcId, JsonRpcMessage, SseParser, parseJson } from '@conduit-mcp/core';
import { MessageTooLargeError, SessionExpiredError } from './client-transport.errors';
import { ClientSendOptions, ClientTransport } from './client-transport.interface';
import { mediaTypeOf, readBoundedBody, readSseBody } from './http-body.reader';
import { answerHttpError, readHttpError } from './http-error.answer';
import { DEFAULT_RECONNECT, ReconnectOptions, reconnectDelay } from './reconnect.backoff';
import { HttpClientSession, HttpSendOptions, HttpServerConfig } from './http-client.session';
import { transportFailure } from './synthetic-response';

/** Where a Streamable HTTP server is. `headers` go with every request; `auth` adds its own per request. */
export type StreamableHttpClientConfig = HttpServerConfig;

/** Options of {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientOptions extends HttpSendOptions {
  /** How lost SSE streams are resumed. */
  reconnect?: Partial<ReconnectOptions>;
}

const DELETE_TIMEOUT_MS = 2_000;
const SESSION_HEADER = 'mcp-session-id';
const noop = () => undefined;

// One POST in flight: its abort controller, linked to the caller's signal until released.
interface Exchange {
  signal: AbortSignal;
  release(): void;
}

// What a POST reply or the standalone GET stream has carried so far, across reconnections.
interface FollowedStream {
  /** The request the stream answers (a POST reply); undefined for the standalone stream. */
  requestId?: JsonRpcId;
  answered: boolean;
  signal: AbortSignal;
  lastEventId?: string;
  retryMs?: number;
  /** Consecutive reconnections that failed or ended at once with no message. */
  failures: number;
}

/**
 * The client side of the Streamable HTTP transport (revisions 2025-03-26 and later, and the 2026-07-28 era).
 *
 * Each message is POSTed; a reply in JSON or SSE is delivered through `onmessage`, with `relatedRequestId` naming
 * the request whose reply carried it. `send` resolves when the reply's head arrives (its body is read in the
 * background) and rejects when the message could not be delivered (network failure, aborted, closed, refused
 * redirect), or, for a notification or response, on an HTTP error status.
 *
 * Once `send` of a request resolved, exactly one response with its id reaches `onmessage` unless its `signal` is
 * aborted or the transport closed: the server's, or a synthetic -32000 error (see `isSyntheticResponse`) when the
 * server refused it without a JSON-RPC answer (`data.status` holds the HTTP status), its reply was over
 * `maxMessageBytes` or not JSON, or its stream ended for good without the response. A reply stream that drops
 * after carrying event ids is resumed with `GET` + `Last-Event-ID`, waiting the server's `retry:` clamped to
 * [`minDelayMs`, `maxDelayMs`] (else `initialDelayMs`), grown by `growFactor` per failed attempt and jittered, for up
 * to `maxRetries` consecutive failed attempts. A reconnection fails when it is refused, or when it ends before
 * delivering a message and before `stableAfterMs`: a server that answers every reconnection with an empty stream
 * (whatever its `retry:`) is given up on, rather than reconnected to in a tight loop.
 *
 * A 404 to a request carrying our session id clears the id and reports a {@link SessionExpiredError} through
 * `onerror`. Redirects are followed within the server's origin only.
 */
export class StreamableHttpClientTransport implements ClientTransport {
  onmessage?: (message: unknown, info?: { relatedRequestId?: JsonRpcId }) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly origin: string;

  private readonly http: HttpClientSession;
  private readonly reconnect: ReconnectOptions;
  private readonly inflight = new Set<AbortController>();
  private standalone: AbortController | undefined;
  private currentSessionId: string | undefined;
  private closed = false;

  constructor(config: StreamableHttpClientConfig, options: StreamableHttpClientOptions = {}) {
    this.http = new HttpClientSession(config, options);
    this.origin = this.http.origin;
    this.reconnect = { ...DEFAULT_RECONNECT, ...options.reconnect };
  }

  /** Sent as `MCP-Protocol-Version` with every later request, until undefined. */
  useRevision(revision: string | undefined): void {
    this.http.protocolVersion = revision;
  }

  /** The session id the server issued (`Mcp-Session-Id`), until it expires or the transport closes. */
  get sessionId(): string | undefined {
    return this.currentSessionId;
  }

  /** Nothing to open: every message is its own request. */
  async start(): Promise<void> {
    this.assertOpen();
  }

  async send(message: JsonRpcMessage, options: ClientSendOptions = {}): Promise<void> {
    this.assertOpen();
    const requestId = 'method' in message && 'id' in message ? message.id : undefined;
    const exchange = this.track(options.signal);
    let handedOff = false;
    try {
      const sentSession = this.currentSessionId;
      const response = await this.http.send({
        method: 'POST',
        session: this.sessionHeaders(),
        message: options.headers,
        fixed: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify(message),
        signal: exchange.signal,
        deadline: options.deadline,
      });
      this.adoptSession(response);
      if (!response.ok) {
        const report = await readHttpError(response, this.http.maxMessageBytes);
        if (response.status === 404 && sentSession) this.expireSession(sentSession);
        if (requestId === undefined) throw new Error(`The server refused the message: ${report.message}`);
        this.deliver(answerHttpError(report, requestId), requestId);
        return;
      }
      handedOff = true;
      const stream: FollowedStream = { requestId, answered: false, signal: exchange.signal, failures: 0 };
      void this.consumeReply(response, stream).finally(() => exchange.release());
    } finally {
      if (!handedOff) exchange.release();
    }
  }

  /**
   * Opens the session's standalone GET stream (legacy era), for server messages unrelated to any request; it is
   * reconnected like reply streams (with `Last-Event-ID` once it carried event ids), and a later call replaces it.
   * Resolves once the stream is open, or at once when the server has none (405); rejects on other refusals.
   */
  async openStandaloneStream(): Promise<void> {
    this.assertOpen();
    this.standalone?.abort();
    const controller = (this.standalone = new AbortController());
    const sentSession = this.currentSessionId;
    const response = await this.http.send({
      method: 'GET',
      session: this.sessionHeaders(),
      fixed: { Accept: 'text/event-stream' },
      signal: controller.signal,
    });
    this.adoptSession(response);
    if (response.ok && mediaTypeOf(response) === 'text/event-stream') {
      void this.follow(response, { answered: false, signal: controller.signal, failures: 0 });
      return;
    }
    void response.body?.cancel().catch(noop);
    if (response.status === 405) return;
    if (response.status === 404 && sentSession) this.expireSession(sentSession);
    throw new Error(`The server refused the standalone SSE stream: HTTP ${response.status}`);
  }

  /** Aborts every request and stream, ends the session with `DELETE` (failures ignored), then fires `onclose`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.standalone?.abort();
    for (const controller of this.inflight) controller.abort();
    this.inflight.clear();
    if (this.currentSessionId) {
      const session = this.sessionHeaders();
      this.currentSessionId = undefined;
      try {
        const response = await this.http.send({
          method: 'DELETE',
          session,
          fixed: {},
          signal: AbortSignal.timeout(DELETE_TIMEOUT_MS),
        });
        void response.body?.cancel().catch(noop);
      } catch {
        // The server may be gone already; the session then expires on its side.
      }
    }
    this.onclose?.();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('Transport is closed');
  }

  // An abort controller for one POST, aborted by the caller's signal or by close().
  private track(callerSignal: AbortSignal | undefined): Exchange {
    const controller = new AbortController();
    const abort = () => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) abort();
    callerSignal?.addEventListener('abort', abort, { once: true });
    this.inflight.add(controller);
    return {
      signal: controller.signal,
      release: () => {
        callerSignal?.removeEventListener('abort', abort);
        this.inflight.delete(controller);
      },
    };
  }

  private sessionHeaders(): Record<string, string> | undefined {
    return this.currentSessionId ? { 'Mcp-Session-Id': this.currentSessionId } : undefined;
  }

  private adoptSession(response: Response): void {
    const id = response.headers.get(SESSION_HEADER);
    if (id) this.currentSessionId = id;
  }

  private expireSession(sentSession: string): void {
    if (this.currentSessionId === sentSession) this.currentSessionId = undefined;
    this.onerror?.(new SessionExpiredError(sentSession));
  }

  private async consumeReply(response: Response, stream: FollowedStream): Promise<void> {
    const type = mediaTypeOf(response);
    if (type === 'text/event-stream') return this.follow(response, stream);
    if (type === 'application/json') return this.consumeJson(response, stream);
    void response.body?.cancel().catch(noop);
    if (response.status === 202 || response.status === 204)
      return this.settle(stream, 'The server accepted the request without answering it');
    this.settle(stream, `The server answered with an unexpected content type (${type || 'none'})`);
  }

  private async consumeJson(response: Response, stream: FollowedStream): Promise<void> {
    let text: string;
    try {
      text = (await readBoundedBody(response, this.http.maxMessageBytes)).toString('utf8');
    } catch (error) {
      if (stream.signal.aborted) return;
      if (error instanceof MessageTooLargeError) {
        this.onerror?.(error);
        return this.settle(stream, `Response too large (over ${this.http.maxMessageBytes} bytes)`);
      }
      return this.settle(stream, 'The connection was lost before the response arrived');
    }
    if (text.trim() !== '' || stream.requestId !== undefined) {
      const parsed = parseJson(text);
      if (!parsed.ok) {
        this.onerror?.(new Error('The server sent a body that is not JSON'));
        return this.settle(stream, 'The server sent a response that is not JSON');
      }
      for (const value of Array.isArray(parsed.value) ? parsed.value : [parsed.value]) this.deliverOn(stream, value);
    }
    this.settle(stream, "The server's reply did not answer the request");
  }

  // Reads an SSE stream to the end, reconnecting while it owes a response (reply) or for good (standalone).
  private async follow(first: Response, stream: FollowedStream): Promise<void> {
    let response: Response | undefined = first;
    let reconnected = false;
    for (;;) {
      if (response) {
        const openedAt = Date.now();
        let delivered: boolean;
        try {
          delivered = await this.readStream(response, stream);
        } catch (error) {
          if (stream.signal.aborted) return;
          this.onerror?.(error as Error);
          return this.settle(stream, `Response too large (over ${this.http.maxMessageBytes} bytes)`);
        }
        if (stream.signal.aborted || stream.answered) return;
        if (stream.requestId !== undefined && stream.lastEventId === undefined) {
          return this.settle(stream, 'The response stream ended before the response, and cannot be resumed');
        }
        // Priming events and comments do not count: a server could send one on each connection and close it.
        if (delivered || Date.now() - openedAt >= this.reconnect.stableAfterMs) stream.failures = 0;
        else if (reconnected) stream.failures++;
      }
      if (stream.failures >= this.reconnect.maxRetries) {
        const gaveUp = `gave up after ${this.reconnect.maxRetries} reconnection attempts`;
        this.onerror?.(new Error(`SSE stream lost: ${gaveUp}`));
        return this.settle(stream, `The response stream was lost (${gaveUp})`);
      }
      try {
        await sleep(reconnectDelay(this.reconnect, stream.failures, stream.retryMs), undefined, {
          signal: stream.signal,
        });
      } catch {
        return;
      }
      const next = await this.resume(stream);
      if (typeof next === 'string') return this.settle(stream, next);
      response = next;
      reconnected = true;
    }
  }

  // One reconnection: the stream, undefined after a failure worth retrying, or why it cannot be resumed.
  private async resume(stream: FollowedStream): Promise<Response | string | undefined> {
    const sentSession = this.currentSessionId;
    let response: Response;
    try {
      const resumeFrom: Record<string, string> =
        stream.lastEventId === undefined ? {} : { 'Last-Event-ID': stream.lastEventId };
      response = await this.http.send({
        method: 'GET',
        session: this.sessionHeaders(),
        fixed: { Accept: 'text/event-stream', ...resumeFrom },
        signal: stream.signal,
      });
    } catch {
      if (stream.signal.aborted) return 'Aborted';
      stream.failures++;
      return undefined;
    }
    this.adoptSession(response);
    if (response.ok && mediaTypeOf(response) === 'text/event-stream') return response;
    void response.body?.cancel().catch(noop);
    if (response.status === 404 && sentSession) {
      this.expireSession(sentSession);
      return 'The session expired before the response arrived';
    }
    if (response.status === 204 || response.status === 405)
      return `The server cannot resume the response stream (HTTP ${response.status})`;
    stream.failures++;
    return undefined;
  }

  // Reads one connection of a stream; true when it delivered a message. Throws only MessageTooLargeError.
  private async readStream(response: Response, stream: FollowedStream): Promise<boolean> {
    const parser = new SseParser({ maxBufferSize: this.http.maxMessageBytes });
    let delivered = false;
    try {
      await readSseBody(response, parser, this.http.maxMessageBytes, (event) => {
        if (event.id !== undefined) stream.lastEventId = event.id === '' ? undefined : event.id;
        if ((event.event ?? 'message') !== 'message' || event.data === '') return;
        const parsed = parseJson(event.data);
        if (!parsed.ok) return this.onerror?.(new Error('The server sent an SSE event that is not JSON'));
        delivered = true;
        for (const value of Array.isArray(parsed.value) ? parsed.value : [parsed.value]) this.deliverOn(stream, value);
      });
    } catch (error) {
      if (error instanceof MessageTooLargeError) throw error;
      // A dropped connection: the caller resumes it.
    } finally {
      if (parser.retry !== undefined) stream.retryMs = parser.retry;
    }
    return delivered;
  }

  private deliverOn(stream: FollowedStream, value: unknown): void {
    if (stream.requestId !== undefined && isResponseTo(value, stream.requestId)) stream.answered = true;
    this.deliver(value, stream.requestId);
  }

  // The synthetic answer of a request whose stream or body ends without its response.
  private settle(stream: FollowedStream, message: string): void {
    if (stream.requestId === undefined || stream.answered || stream.signal.aborted) return;
    stream.answered = true;
    this.deliver(transportFailure(stream.requestId, message), stream.requestId);
  }

  private deliver(message: unknown, relatedRequestId: JsonRpcId | undefined): void {
    try {
      this.onmessage?.(message, relatedRequestId === undefined ? undefined : { relatedRequestId });
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

function isResponseTo(value: unknown, id: JsonRpcId): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  return message.id === id && !('method' in message) && ('result' in message || 'error' in message);
}

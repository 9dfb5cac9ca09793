import { JsonRpcMessage, SseParser, parseJson } from '@conduit-mcp/core';
import { ClientSendOptions, ClientTransport } from './client-transport.interface';
import { mediaTypeOf, readSseBody } from './http-body.reader';
import { answerHttpError, readHttpError } from './http-error.answer';
import { HttpClientSession, HttpSendOptions, HttpServerConfig } from './http-client.session';

/** Where a 2024-11-05 HTTP+SSE server's event stream is. `headers` go with every request; `auth` adds its own per request. */
export type SseClientConfig = HttpServerConfig;

/** Options of {@link SseClientTransport}. */
export type SseClientOptions = HttpSendOptions;

const noop = () => undefined;

/**
 * The client side of the deprecated HTTP+SSE transport (revision 2024-11-05): `start` opens the event stream and
 * resolves once its `endpoint` event names where to POST (resolved against the stream's URL, and refused unless it
 * is on the same origin); messages from the server arrive as `message` events on that stream.
 *
 * `send` POSTs one message and resolves on the server's 2xx (202); a request refused with an HTTP error gets the
 * server's JSON-RPC error, or a synthetic -32000 one (see `isSyntheticResponse`), through `onmessage`; a refused
 * notification or response rejects. The session lives as long as the stream: when the server ends it, the
 * transport closes and `onclose` fires. There is no resumption in this revision.
 */
export class SseClientTransport implements ClientTransport {
  onmessage?: ClientTransport['onmessage'];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly origin: string;

  private readonly http: HttpClientSession;
  private readonly lifetime = new AbortController();
  private endpoint: URL | undefined;
  private started = false;
  private closed = false;

  constructor(config: SseClientConfig, options: SseClientOptions = {}) {
    this.http = new HttpClientSession(config, options);
    this.origin = this.http.origin;
  }

  /** Sent as `MCP-Protocol-Version` with every later request, until undefined. */
  useRevision(revision: string | undefined): void {
    this.http.protocolVersion = revision;
  }

  /** The URL messages are POSTed to, once the server named it. */
  get messageEndpoint(): string | undefined {
    return this.endpoint?.href;
  }

  /** Opens the event stream; resolves on its `endpoint` event. On failure the transport is closed (no `onclose`). */
  async start(): Promise<void> {
    if (this.started || this.closed) throw new Error(this.closed ? 'Transport is closed' : 'Transport already started');
    this.started = true;
    try {
      const response = await this.http.send({
        method: 'GET',
        fixed: { Accept: 'text/event-stream' },
        signal: this.lifetime.signal,
      });
      if (!response.ok || mediaTypeOf(response) !== 'text/event-stream') {
        void response.body?.cancel().catch(noop);
        throw new Error(`The server refused the SSE stream: HTTP ${response.status}`);
      }
      await new Promise<void>((resolve, reject) => void this.read(response, resolve, reject));
    } catch (error) {
      this.closed = true;
      this.lifetime.abort();
      throw error;
    }
  }

  async send(message: JsonRpcMessage, options: ClientSendOptions = {}): Promise<void> {
    if (this.closed) throw new Error('Transport is closed');
    if (!this.endpoint) throw new Error('Transport not started');
    const signal = options.signal ? AbortSignal.any([this.lifetime.signal, options.signal]) : this.lifetime.signal;
    const response = await this.http.send(
      {
        method: 'POST',
        message: options.headers,
        fixed: { 'Content-Type': 'application/json' },
        body: JSON.stringify(message),
        signal,
        deadline: options.deadline,
      },
      this.endpoint,
    );
    if (response.ok) {
      void response.body?.cancel().catch(noop);
      return;
    }
    const report = await readHttpError(response, this.http.maxMessageBytes);
    if (!('method' in message && 'id' in message)) throw new Error(`The server refused the message: ${report.message}`);
    this.deliver(answerHttpError(report, message.id));
  }

  /** Aborts the stream and every POST in flight, then fires `onclose`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lifetime.abort();
    this.onclose?.();
  }

  // Reads the stream until it ends: the endpoint first (settling start), then messages.
  private async read(response: Response, ready: () => void, refuse: (error: Error) => void): Promise<void> {
    const parser = new SseParser({ maxBufferSize: this.http.maxMessageBytes });
    let failure: Error | undefined;
    try {
      await readSseBody(response, parser, this.http.maxMessageBytes, (event) => {
        if (event.event === 'endpoint') {
          if (this.endpoint) return;
          this.endpoint = this.endpointFrom(event.data);
          ready();
        } else if ((event.event ?? 'message') === 'message' && this.endpoint) {
          const parsed = parseJson(event.data);
          if (parsed.ok) this.deliver(parsed.value);
          else this.onerror?.(new Error('The server sent an SSE event that is not JSON'));
        }
      });
    } catch (error) {
      failure = error as Error;
    }
    if (!this.endpoint) return refuse(failure ?? new Error('The SSE stream ended before naming the message endpoint'));
    if (this.closed) return;
    if (failure) this.onerror?.(failure);
    void this.close();
  }

  private endpointFrom(data: string): URL {
    let endpoint: URL;
    try {
      endpoint = new URL(data, this.http.url);
    } catch {
      throw new Error('The server named an invalid message endpoint');
    }
    if (endpoint.origin !== this.origin) {
      throw new Error(`The server named a message endpoint on another origin (${endpoint.origin}); refused`);
    }
    return endpoint;
  }

  private deliver(message: unknown): void {
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

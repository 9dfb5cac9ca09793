import { JsonRpcMessage, SseParser, parseJson } from '@conduit-mcp/core';
import { ClientSendOptions, ClientTransport } from './client-transport.interface';
import { mediaTypeOf, readSseBody } from './http-body.reader';
import { answerHttpError, readHttpError } from './http-error.answer';
import { nodeHttpFetch } from './node-http.fetch';
import { fetchSameOrigin } from './same-origin.fetch';

/** Where a 2024-11-05 HTTP+SSE server's event stream is. */
export interface SseClientConfig {
  url: string;
  /** Sent with the GET and every POST (e.g. `Authorization`). */
  headers?: Record<string, string>;
}

/** Options of {@link SseClientTransport}. */
export interface SseClientOptions {
  /** Default: `node:http` with keep-alive (see `nodeHttpFetch`), several times cheaper per request than the global `fetch`. */
  fetch?: typeof fetch;
  /** Largest SSE event accepted from the server. Default 10 MiB. */
  maxMessageBytes?: number;
}

const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
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
  /** Sent as `MCP-Protocol-Version` with each POST once set. */
  protocolVersion?: string;
  readonly origin: string;

  private readonly url: URL;
  private readonly fetchFn: typeof fetch;
  private readonly maxMessageBytes: number;
  private readonly lifetime = new AbortController();
  private endpoint: URL | undefined;
  private started = false;
  private closed = false;

  constructor(
    private readonly config: SseClientConfig,
    options: SseClientOptions = {},
  ) {
    this.url = new URL(config.url);
    this.origin = this.url.origin;
    this.fetchFn = options.fetch ?? nodeHttpFetch;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
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
      const response = await fetchSameOrigin(this.fetchFn, this.url, {
        method: 'GET',
        headers: this.headersFor({ Accept: 'text/event-stream' }),
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
    const response = await fetchSameOrigin(this.fetchFn, this.endpoint, {
      method: 'POST',
      headers: this.headersFor({ 'Content-Type': 'application/json' }, options.headers),
      body: JSON.stringify(message),
      signal,
    });
    if (response.ok) {
      void response.body?.cancel().catch(noop);
      return;
    }
    const report = await readHttpError(response, this.maxMessageBytes);
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

  private headersFor(fixed: Record<string, string>, perMessage?: Record<string, string>): Headers {
    const headers = new Headers(this.config.headers);
    if (this.protocolVersion) headers.set('MCP-Protocol-Version', this.protocolVersion);
    for (const [name, value] of Object.entries(perMessage ?? {})) headers.set(name, value);
    for (const [name, value] of Object.entries(fixed)) headers.set(name, value);
    return headers;
  }

  // Reads the stream until it ends: the endpoint first (settling start), then messages.
  private async read(response: Response, ready: () => void, refuse: (error: Error) => void): Promise<void> {
    const parser = new SseParser({ maxBufferSize: this.maxMessageBytes });
    let failure: Error | undefined;
    try {
      await readSseBody(response, parser, this.maxMessageBytes, (event) => {
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
      endpoint = new URL(data, this.url);
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

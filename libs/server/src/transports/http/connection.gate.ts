import { STATUS_CODES, Server } from 'node:http';
import type { Socket } from 'node:net';
import { ErrorCode, errorResponse, serializeMessage } from '@conduit-mcp/core';
import { addressKey } from './client-address';
import type { ResolvedConnectionOptions } from './http-options';

type ConnectionListener = (socket: Socket) => void;

// A refused connection is kept this long at most (to let the client read the 503), and this many at once: past that,
// refused connections are closed at once, so a flood of them holds nothing.
const REFUSAL_LINGER_MS = 1_000;
const MAX_LINGERING_REFUSALS = 256;

// The connections-checking interval (which enforces headersTimeout and requestTimeout) is a fraction of the shorter
// of the two, within these bounds: Node's own 30 s would let a 30 s request timeout run to a minute.
const MIN_CHECK_INTERVAL_MS = 50;
const MAX_CHECK_INTERVAL_MS = 1_000;

const guarded = new WeakSet<Server>();

/**
 * Bounds an HTTP server for every request it serves: the timeouts of `limits` (headers, whole request, keep-alive,
 * idle socket) and the connection caps (in all and per client address), whose excess is answered `503` with
 * `Retry-After` and a JSON-RPC error, then closed, before anything of it is read. Applied once per server (several
 * MCP servers of one app share the first's limits). Returns what removes the caps again (the timeouts stay).
 *
 * Must run before the server listens: the interval that enforces the header and request timeouts starts then.
 */
export function guardHttpServer(
  server: Server,
  limits: ResolvedConnectionOptions,
  retryAfterSeconds: number,
): () => void {
  if (guarded.has(server)) return () => undefined;
  guarded.add(server);
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.timeout = limits.idleTimeoutMs;
  const shortest = Math.min(...[limits.headersTimeoutMs, limits.requestTimeoutMs].filter((ms) => ms > 0));
  if (Number.isFinite(shortest)) {
    (server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = Math.max(
      MIN_CHECK_INTERVAL_MS,
      Math.min(MAX_CHECK_INTERVAL_MS, Math.floor(shortest / 4)),
    );
  }
  server.on('timeout', closeIfIdle);
  // Node's own answer to a client error is an empty 400/408/431; a JSON-RPC body says what happened. A server with a
  // handler of its own (Fastify's) keeps it.
  const ownsClientErrors = server.listenerCount('clientError') === 0;
  if (ownsClientErrors) server.on('clientError', answerClientError);

  // Only a plain HTTP/1 server's client can read the 503 (a TLS or HTTP/2 client would read garbage).
  const gate = new ConnectionGate(limits, retryAfterSeconds, server instanceof Server);
  const admitted = server.listeners('connection') as ConnectionListener[];
  const front: ConnectionListener = (socket) => {
    if (!gate.admit(socket)) return;
    for (const listener of admitted) listener.call(server, socket);
  };
  server.removeAllListeners('connection');
  server.on('connection', front);
  return () => {
    server.removeListener('connection', front);
    for (const listener of admitted) server.on('connection', listener);
    server.removeListener('timeout', closeIfIdle);
    if (ownsClientErrors) server.removeListener('clientError', answerClientError);
    guarded.delete(server);
  };
}

/** Counts open connections in all and per address, and refuses those past either cap. */
class ConnectionGate {
  private open = 0;
  private readonly perAddress = new Map<string, number>();
  private lingering = 0;
  private readonly tooMany: Buffer;
  private readonly tooManyFromAddress: Buffer;

  constructor(
    private readonly limits: ResolvedConnectionOptions,
    retryAfterSeconds: number,
    // Whether a refused connection is answered (else it is only closed).
    private readonly answers: boolean,
  ) {
    this.tooMany = serviceUnavailable(
      'Service Unavailable: the server has as many connections open as it allows; retry later',
      retryAfterSeconds,
    );
    this.tooManyFromAddress = serviceUnavailable(
      'Service Unavailable: this client address has as many connections open as it allows; close one or retry later',
      retryAfterSeconds,
    );
  }

  admit(socket: Socket): boolean {
    const key = addressKey(socket.remoteAddress);
    const fromAddress = this.perAddress.get(key) ?? 0;
    if (this.open >= this.limits.max) return this.refuse(socket, this.tooMany);
    if (fromAddress >= this.limits.maxPerAddress) return this.refuse(socket, this.tooManyFromAddress);
    this.open++;
    this.perAddress.set(key, fromAddress + 1);
    socket.once('close', () => {
      this.open--;
      const left = (this.perAddress.get(key) ?? 1) - 1;
      if (left > 0) this.perAddress.set(key, left);
      else this.perAddress.delete(key);
    });
    return true;
  }

  // Answers before reading anything, then reads and drops what the client sends (closing at once would reset the
  // connection under a client still writing its request, which would see an error instead of the 503).
  private refuse(socket: Socket, answer: Buffer): false {
    socket.on('error', noop);
    if (!this.answers || this.lingering >= MAX_LINGERING_REFUSALS) {
      socket.destroy();
      return false;
    }
    this.lingering++;
    const timer = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
    socket.once('close', () => {
      this.lingering--;
      clearTimeout(timer);
    });
    socket.end(answer);
    socket.resume();
    return false;
  }
}

function serviceUnavailable(message: string, retryAfterSeconds: number): Buffer {
  const body = serializeMessage(errorResponse(null, { code: ErrorCode.ServerError, message }));
  return Buffer.from(
    `HTTP/1.1 503 ${STATUS_CODES[503]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Retry-After: ${retryAfterSeconds}\r\nConnection: close\r\n\r\n${body}`,
  );
}

interface HttpSocket extends Socket {
  // The response the socket is serving (Node's own field; undefined between requests).
  _httpMessage?: { req?: { complete?: boolean } };
}

// Nothing moved on the socket for `server.timeout`. It is kept only while it waits for the server itself: a response
// under way to a request fully received, with nothing left unsent (a handler still running, a quiet SSE stream). A
// client that stopped sending its request, or stopped reading its response, or sends nothing at all, is cut off.
function closeIfIdle(socket: HttpSocket): void {
  const response = socket._httpMessage;
  if (response?.req?.complete === true && socket.writableLength === 0) return;
  socket.destroy();
}

// Node's answers to client errors, with a JSON-RPC body.
const CLIENT_ERRORS: Record<string, [status: number, message: string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout: the request was not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large: chunk extensions too large'],
};
const BAD_REQUEST: [number, string] = [400, 'Bad Request: the request is not valid HTTP'];
const clientErrorAnswers = new Map<string, Buffer>();

function answerClientError(error: NodeJS.ErrnoException, socket: HttpSocket): void {
  const response = socket._httpMessage as { headersSent?: boolean } | undefined;
  if (socket.writable && !response?.headersSent) {
    const code = error.code ?? '';
    const [status, message] = CLIENT_ERRORS[code] ?? BAD_REQUEST;
    let answer = clientErrorAnswers.get(`${status}`);
    if (!answer) {
      const body = serializeMessage(errorResponse(null, { code: ErrorCode.ServerError, message }));
      answer = Buffer.from(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      clientErrorAnswers.set(`${status}`, answer);
    }
    socket.write(answer);
  }
  socket.destroy(error);
}

const noop = () => undefined;

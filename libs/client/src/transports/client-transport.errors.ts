/**
 * The Streamable HTTP server answered 404 to a request carrying our `Mcp-Session-Id`: the session is gone. The
 * transport has already forgotten the id; the client should initialize a new session.
 */
export class SessionExpiredError extends Error {
  constructor(readonly sessionId: string) {
    super('The server ended the MCP session (HTTP 404); initialize a new one');
    this.name = 'SessionExpiredError';
  }
}

/** An inbound message (a stdio line, an HTTP body or an SSE event) exceeded the transport's size limit. */
export class MessageTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`Message from the server exceeds ${limitBytes} bytes; dropped`);
    this.name = 'MessageTooLargeError';
  }
}

/**
 * Nothing answered an HTTP request to the server: `url` is where it was sent (without its query), `code` the network
 * cause (`ECONNREFUSED`, `ENOTFOUND`, a TLS code…) when one is known; `cause` holds the original error.
 */
export class ServerUnreachableError extends Error {
  constructor(
    readonly url: string,
    readonly code: string | undefined,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Cannot reach the MCP server at ${url}: ${reason}`, options);
    this.name = 'ServerUnreachableError';
  }
}

/**
 * The stdio server's process ended on its own (not by `close()`): how — `exitCode`, or the `signal` that ended it —
 * and `stderrTail`, the last lines it wrote to stderr (sanitized), which usually say why.
 */
export class ServerExitedError extends Error {
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
    readonly stderrTail: string,
  ) {
    const how = signal ? `was ended by ${signal}` : `exited with code ${exitCode}`;
    const why = stderrTail ? `; the end of its stderr: ${stderrTail}` : ' and wrote nothing to stderr';
    super(`The MCP server "${command}" ${how}${why}`);
    this.name = 'ServerExitedError';
  }
}

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

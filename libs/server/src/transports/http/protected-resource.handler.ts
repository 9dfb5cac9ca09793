import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProtectedResourceMetadata, serializeMessage } from '@conduit-mcp/core';
import { HostAndOriginOptions, passesHostAndOrigin } from './host-origin.check';
import { sendEmpty, sendError } from './http-response.util';

// Public metadata that browser-based clients (the Inspector) read cross-origin: any origin, no credentials.
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'MCP-Protocol-Version',
  'Access-Control-Max-Age': '86400',
};

/**
 * Serves the protected resource metadata (RFC 9728) of `McpModule.forRoot({ auth })`: `GET` and `HEAD` answer the
 * document, `OPTIONS` the CORS preflight, anything else 405. It needs no token (it is how a client learns where to
 * get one) and is the same for everyone, so it is written once — when first asked for, as its `scopes_supported`
 * may come from what discovery found; the Host check still applies (a rebound name gets nothing), not the Origin
 * check (any site may read public metadata).
 */
export class ProtectedResourceHandler {
  private body: Buffer | undefined;
  private readonly hostCheck: HostAndOriginOptions;

  /** `metadata` gives the document, or undefined while it cannot be known yet (the server is still starting). */
  constructor(
    private readonly metadata: () => ProtectedResourceMetadata | undefined,
    allowedHosts: readonly string[] | false | undefined,
  ) {
    this.hostCheck = { allowedHosts, allowedOrigins: false };
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    if (!passesHostAndOrigin(req, res, this.hostCheck)) return;
    const body = this.written();
    if (body === undefined) return sendError(res, 503, 'Starting', { headers: { 'Retry-After': '1' } });
    switch (req.method) {
      case 'GET':
      case 'HEAD':
        res.writeHead(200, {
          ...CORS_HEADERS,
          'Content-Type': 'application/json',
          'Content-Length': body.length,
          'Cache-Control': 'public, max-age=3600',
        });
        res.end(req.method === 'GET' ? body : undefined);
        return;
      case 'OPTIONS':
        return sendEmpty(res, 204, CORS_HEADERS);
      default:
        sendError(res, 405, 'Method Not Allowed', { headers: { Allow: 'GET, HEAD, OPTIONS', ...CORS_HEADERS } });
    }
  }

  private written(): Buffer | undefined {
    if (this.body) return this.body;
    const document = this.metadata();
    if (document !== undefined) this.body = Buffer.from(serializeMessage(document));
    return this.body;
  }
}

import {
  ErrorCode,
  JsonRpcResponse,
  McpError,
  McpErrorHttpHint,
  classifyMessage,
  errorResponse,
} from '@conduit-mcp/core';
import { DispatchOrigin } from '../../dispatch/dispatch-origin.interface';
import { McpHttpOptions } from '../../interfaces/mcp-module-options.interface';
import { resolveHttpOptions } from './http-options';
import { hintedHeaders, hintedStatus } from './json-reply.status';
import { StreamableHttpHandler } from './streamable-http.handler';
import { FakeEndpoint, SseReader, TestServer, initialize, post, startServer } from './http-test.fixtures-spec';

const SCOPE_CHALLENGE = 'Bearer error="insufficient_scope", scope="notes:write"';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** FakeEndpoint plus `refuse`: an McpError with the HTTP hint in `params.hint` (legacy or modern). */
class HintingEndpoint extends FakeEndpoint {
  override async handle(raw: unknown, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    const classified = classifyMessage(raw);
    if (classified.kind !== 'request' || classified.message.method !== 'refuse') return super.handle(raw, origin);
    const { id, params = {} } = classified.message;
    if (params.stream) origin.stream?.send({ jsonrpc: '2.0', method: 'notifications/message', params: {} });
    const hint = params.hint as McpErrorHttpHint | undefined;
    return errorResponse(id, new McpError(ErrorCode.InvalidParams, 'Insufficient scope', undefined, { http: hint }));
  }
}

describe("an McpError's HTTP hint", () => {
  let server: TestServer;
  let port: number;

  async function serve(options: McpHttpOptions = {}): Promise<void> {
    const handler = new StreamableHttpHandler(new HintingEndpoint(), resolveHttpOptions(options));
    server = await startServer((req, res) => void handler.handle(req, res));
    port = server.port;
  }

  afterEach(() => server.close());

  const refuse = (hint: McpErrorHttpHint | undefined, headers: Record<string, string>, extra = {}) =>
    post(port, { jsonrpc: '2.0', id: 7, method: 'refuse', params: { hint, ...extra } }, headers);

  it('sets the status and headers of a legacy single-message POST, the body unchanged', async () => {
    await serve();
    const sessionId = await initialize(port);
    const res = await refuse(
      { status: 403, headers: { 'WWW-Authenticate': SCOPE_CHALLENGE } },
      {
        'mcp-session-id': sessionId,
      },
    );
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe(SCOPE_CHALLENGE);
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Insufficient scope' } });
  });

  it('sets them on a modern-era POST, over the era’s own status (400 for -32602)', async () => {
    await serve();
    const res = await refuse(
      { status: 403, headers: { 'WWW-Authenticate': SCOPE_CHALLENGE } },
      {},
      {
        _meta: MODERN_META,
      },
    );
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe(SCOPE_CHALLENGE);
  });

  it('leaves the status as it was without a hint (legacy 200, modern 400)', async () => {
    await serve();
    const sessionId = await initialize(port);
    const legacy = await refuse(undefined, { 'mcp-session-id': sessionId });
    expect(legacy.status).toBe(200);
    expect(legacy.headers['www-authenticate']).toBeUndefined();
    const modern = await refuse(undefined, {}, { _meta: MODERN_META });
    expect(modern.status).toBe(400);
  });

  it('applies the headers alone when the hint has no status', async () => {
    await serve({ sessionMode: 'stateless' });
    const res = await refuse({ headers: { 'X-Reason': 'scope' } }, {});
    expect(res.status).toBe(200);
    expect(res.headers['x-reason']).toBe('scope');
  });

  it('is not applied to a batch, nor once the reply went out as SSE', async () => {
    await serve({ sessionMode: 'stateless' });
    const hint = { status: 403, headers: { 'WWW-Authenticate': SCOPE_CHALLENGE } };
    const batch = await post(port, [{ jsonrpc: '2.0', id: 1, method: 'refuse', params: { hint } }]);
    expect(batch.status).toBe(200);
    expect(batch.headers['www-authenticate']).toBeUndefined();
    const streamed = await SseReader.open(port, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 2, method: 'refuse', params: { hint, stream: true } },
    });
    await streamed.untilEnded();
    expect(streamed.status).toBe(200);
    expect(streamed.messages.at(-1)).toMatchObject({ id: 2, error: { code: -32602 } });
  });

  describe('sanitizing', () => {
    it('takes error statuses only', () => {
      expect(hintedStatus({ status: 403 }, 200)).toBe(403);
      expect(hintedStatus({ status: 503 }, 200)).toBe(503);
      for (const status of [200, 302, 99, 600, 403.5, Number.NaN, undefined])
        expect(hintedStatus({ status }, 400)).toBe(400);
    });

    it('drops invalid headers and never replaces the transport’s own', () => {
      const headers = hintedHeaders(
        {
          headers: {
            'WWW-Authenticate': 'Bearer',
            'Bad Name': 'x',
            'X-Split': 'a\r\nSet-Cookie: b',
            'Content-Type': 'text/html',
            'mcp-session-id': 'forged',
          },
        },
        { 'Mcp-Session-Id': 'real' },
      );
      expect(headers).toEqual({ 'WWW-Authenticate': 'Bearer', 'Mcp-Session-Id': 'real' });
    });
  });
});

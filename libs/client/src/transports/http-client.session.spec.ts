import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { ServerUnreachableError } from './client-transport.errors';
import { HttpClientSession, McpHttpAuthProvider } from './http-client.session';
import { describeNetworkFailure } from './network-failure';

describe('HttpClientSession', () => {
  let server: Server;
  let url: string;
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  const seen: IncomingMessage[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req);
      req.resume();
      req.on('end', () => answer(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });

  it('sends the headers in their order of precedence: configured, revision, authorization, session, message, kind', async () => {
    const http = new HttpClientSession({
      url,
      headers: { 'x-layer': 'configured', 'x-configured': '1', authorization: 'Basic configured' },
      auth: { headers: () => ({ authorization: 'Bearer fresh', 'x-layer': 'auth' }) },
    });
    http.protocolVersion = '2025-11-25';
    const response = await http.send({
      method: 'POST',
      session: { 'mcp-session-id': 's1', 'x-layer': 'session' },
      message: { 'mcp-method': 'tools/call', 'x-layer': 'message' },
      fixed: { 'content-type': 'application/json', 'x-layer': 'fixed' },
      body: '{}',
    });
    await response.text();
    expect(seen[0].headers).toMatchObject({
      'x-configured': '1',
      'mcp-protocol-version': '2025-11-25',
      authorization: 'Bearer fresh',
      'mcp-session-id': 's1',
      'mcp-method': 'tools/call',
      'x-layer': 'fixed',
    });
  });

  it('on 401 asks the provider, and sends the request once more with its fresh headers when it says so', async () => {
    let token = 'old';
    const refusals: unknown[] = [];
    const auth: McpHttpAuthProvider = {
      headers: (_url, method) => ({ authorization: `Bearer ${token}`, 'x-method': method }),
      unauthorized: (refusal) => {
        refusals.push(refusal);
        token = 'new';
        return true;
      },
    };
    answer = (req, res) =>
      req.headers.authorization === 'Bearer new'
        ? res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
        : res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
    const http = new HttpClientSession({ url, auth });
    const response = await http.send({ method: 'POST', fixed: {}, body: '{"jsonrpc":"2.0"}' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(refusals).toEqual([
      {
        status: 401,
        challenge: 'Bearer error="invalid_token"',
        url: new URL(url),
        sent: { authorization: 'Bearer old', 'x-method': 'POST' },
        responseHeaders: expect.any(Headers),
      },
    ]);
    expect(seen.map((req) => req.headers.authorization)).toEqual(['Bearer old', 'Bearer new']);
    expect(seen.map((req) => req.headers['x-method'])).toEqual(['POST', 'POST']);
  });

  it('retries twice at most (a token, then a step-up), and not at all when the provider declines or has no hook', async () => {
    answer = (_req, res) => res.writeHead(403).end();
    let asked = 0;
    const always = new HttpClientSession({
      url,
      auth: { headers: () => undefined, unauthorized: () => (asked++, true) },
    });
    expect((await always.send({ method: 'GET', fixed: {} })).status).toBe(403);
    expect([asked, seen.length]).toEqual([2, 3]);

    seen.length = 0;
    const declines = new HttpClientSession({ url, auth: { headers: () => undefined, unauthorized: () => false } });
    expect((await declines.send({ method: 'GET', fixed: {} })).status).toBe(403);
    const hookless = new HttpClientSession({ url, auth: { headers: () => undefined } });
    expect((await hookless.send({ method: 'GET', fixed: {} })).status).toBe(403);
    expect(seen).toHaveLength(2);
  });

  it('names the server and the cause when nothing answers (a closed port: connection refused)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const http = new HttpClientSession({ url: `http://127.0.0.1:${port}/mcp?token=secret` });
    const failure = await http.send({ method: 'POST', fixed: {}, body: '{}' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServerUnreachableError);
    expect(failure).toMatchObject({ code: 'ECONNREFUSED', url: `http://127.0.0.1:${port}/mcp` });
    expect((failure as Error).message).toBe(
      `Cannot reach the MCP server at http://127.0.0.1:${port}/mcp: connection refused (ECONNREFUSED)`,
    );
    expect((failure as Error).message).not.toContain('secret');
  });

  it('rejects with the signal’s reason when the caller aborts, not as an unreachable server', async () => {
    answer = () => undefined; // never answers
    const http = new HttpClientSession({ url });
    const controller = new AbortController();
    const sent = http.send({ method: 'GET', fixed: {}, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 20);
    await expect(sent).rejects.toThrow('caller gave up');
  });
});

describe('describeNetworkFailure', () => {
  const where = new URL('https://mcp.example.test:8443/mcp?x=1');
  const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });
  const systemError = (code: string, message: string) => Object.assign(new Error(message), { code });

  it.each([
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND mcp.example.test', 'host not found (DNS) (ENOTFOUND)'],
    ['EAI_AGAIN', 'getaddrinfo EAI_AGAIN mcp.example.test', 'DNS lookup failed for now (EAI_AGAIN)'],
    ['ECONNRESET', 'read ECONNRESET', 'the connection was reset (ECONNRESET)'],
    [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'self-signed certificate',
      'TLS failure: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)',
    ],
    ['ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames", 'TLS failure: '],
    ['EWHATEVER', 'something odd', 'something odd (EWHATEVER)'],
  ])('%s: says what happened, where', (code, message, reason) => {
    const described = describeNetworkFailure(fetchFailed(systemError(code, message)), where) as ServerUnreachableError;
    expect(described).toBeInstanceOf(ServerUnreachableError);
    expect(described.code).toBe(code);
    expect(described.message).toContain(`Cannot reach the MCP server at https://mcp.example.test:8443/mcp: ${reason}`);
  });

  it('reads the first address’s error when every address failed (an AggregateError cause)', () => {
    const cause = new AggregateError([systemError('ECONNREFUSED', 'connect ECONNREFUSED ::1:80')], 'all failed');
    const described = describeNetworkFailure(fetchFailed(cause), where) as ServerUnreachableError;
    expect(described.code).toBe('ECONNREFUSED');
  });

  it('leaves other errors as they are (a refused redirect)', () => {
    const refused = new Error('Refused HTTP 302 redirect from https://a to https://b');
    expect(describeNetworkFailure(refused, where)).toBe(refused);
  });
});

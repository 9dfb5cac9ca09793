// JSON-RPC over Streamable HTTP with a bearer token, by hand: the HTTP status and the challenge of each answer stay
// visible, which an SDK client hides.

/** One answer: its HTTP status, its `WWW-Authenticate`, and the JSON-RPC response (from JSON or the first SSE event). */
export interface RpcAnswer {
  status: number;
  challenge: string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** POSTs one JSON-RPC message to `url` with `token` (none: no Authorization header). */
export async function postRpc(
  url: string,
  token: string | undefined,
  body: object,
  headers: Record<string, string> = {},
): Promise<RpcAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const data = /^data: (.*)$/m.exec(text);
  const json = text.startsWith('{') ? JSON.parse(text) : data ? JSON.parse(data[1]) : {};
  return { status: response.status, challenge: response.headers.get('www-authenticate'), ...json };
}

/** Initializes a 2025-11-25 session for the token's holder: its `Mcp-Session-Id`. */
export async function initializeSession(url: string, token: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}`);
  return response.headers.get('mcp-session-id')!;
}

/** A 2025-11-25 session of the token's holder (initialized): a function sending its requests, numbered. */
export async function legacySessionOf(
  url: string,
  token: string,
): Promise<(method: string, params?: object) => Promise<RpcAnswer>> {
  const headers = { 'mcp-session-id': await initializeSession(url, token), 'mcp-protocol-version': '2025-11-25' };
  await postRpc(url, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  let id = 1;
  return (method, params = {}) => postRpc(url, token, { jsonrpc: '2.0', id: id++, method, params }, headers);
}

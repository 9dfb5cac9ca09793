// A bare modern-era (2026-07-28) Streamable HTTP client over fetch: one stateless `tools/call` per POST, with the
// `_meta` and `Mcp-*` headers the era requires, for tests that read the server's side (metrics, traces) of a call.

export const MODERN = '2026-07-28';

/** The `_meta` a modern request must carry, plus `extra` (e.g. `traceparent`). */
export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

/** `tools/call` of `name` POSTed to `url` with `params` beside the name (arguments, `_meta`); the status and answer. */
export async function modernToolCall(
  url: string,
  id: number,
  name: string,
  params: Record<string, unknown> = { arguments: {}, _meta: modernMeta() },
): Promise<{ status: number; json: Record<string, any> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...params } }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

'use strict';
// The minimal Streamable HTTP client: one fetch POST per tools/call `echo` (legacy era, no session), JSON answer
// parsed. It is what both MCP clients build on (global fetch), so it is the client-side limit over HTTP.
const LEGACY = '2025-11-25';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY };

/** Resolves { call(text), close() } against `url` after initialize + notifications/initialized. */
async function openRawHttp(url) {
  let nextId = 1;
  const post = async (message) => {
    const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(message) });
    if (res.status === 202) return undefined;
    const body = await res.json();
    if (body.error) throw new Error(`JSON-RPC error ${body.error.code}: ${body.error.message}`);
    return body.result;
  };
  await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench-raw', version: '1' } } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    call: (text) => post({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'echo', arguments: { text } } }),
    close: async () => {},
  };
}

module.exports = { openRawHttp };

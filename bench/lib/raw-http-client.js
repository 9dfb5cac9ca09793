'use strict';
// The minimal Streamable HTTP client: one POST per tools/call `echo` (legacy era, no session) over node:http with a
// keep-alive agent, JSON answer parsed. Nothing an MCP client does costs less, so it is the client-side limit over HTTP.
const http = require('node:http');
const { post } = require('./http-post');

const LEGACY = '2025-11-25';
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': LEGACY,
};

/** Resolves { call(text), close() } against `url` after initialize + notifications/initialized. */
async function openRawHttp(url) {
  const agent = new http.Agent({ keepAlive: true });
  let nextId = 1;
  const send = async (message) => {
    const res = await post(url, HEADERS, JSON.stringify(message), agent);
    if (res.status === 202) return undefined;
    const answer = JSON.parse(res.text);
    if (answer.error) throw new Error(`JSON-RPC error ${answer.error.code}: ${answer.error.message}`);
    return answer.result;
  };
  await send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench-raw', version: '1' } },
  });
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    call: (text) =>
      send({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'echo', arguments: { text } } }),
    close: async () => agent.destroy(),
  };
}

module.exports = { openRawHttp };
